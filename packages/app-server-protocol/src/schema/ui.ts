import { Type } from "typebox";
import { Closed } from "./common.js";
import { notification } from "./define.js";

const Placement = Type.Union([Type.Literal("aboveEditor"), Type.Literal("belowEditor")]);

export const ui = {
  serverNotifications: {
    "ui/state": notification({
      params: Type.Object(
        {
          threadId: Type.String(),
          statuses: Type.Array(Type.Object({ key: Type.String(), text: Type.String() }, Closed), { description: "Sorted by key." }),
          title: Type.Optional(Type.String({ description: "Absent: cleared." })),
          workingMessage: Type.Optional(Type.String({ description: "Absent: cleared." })),
          workingVisible: Type.Boolean(),
        },
        Closed,
      ),
      doc: "Every field of the thread's extension UI but the widgets, whole, whenever one changes; to subscribers.",
    }),
    "ui/widget": notification({
      params: Type.Object(
        {
          threadId: Type.String(),
          key: Type.String(),
          placement: Type.Optional(Placement),
          lines: Type.Optional(Type.Array(Type.String())),
          view: Type.Optional(Type.Unknown()),
        },
        Closed,
      ),
      doc: "One widget set or replaced (it moves to the end of its placement), or {threadId, key} alone when removed; to subscribers.",
    }),
    "ui/notify": notification({
      params: Type.Object(
        {
          threadId: Type.String(),
          message: Type.String(),
          level: Type.Union([Type.Literal("info"), Type.Literal("warning"), Type.Literal("error")]),
        },
        Closed,
      ),
      doc: "A notice from an extension; to subscribers.",
    }),
  },
} as const;
