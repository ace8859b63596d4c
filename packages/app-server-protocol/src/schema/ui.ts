import { Type } from "typebox";
import { Closed, EmptyObject } from "./common.js";
import { notification, request } from "./define.js";
import { View } from "./views.js";

const Placement = Type.Union([Type.Literal("aboveEditor"), Type.Literal("belowEditor")]);

export const ui = {
  clientRequests: {
    "ui/event": request({
      params: Type.Object(
        {
          threadId: Type.String(),
          widgetKey: Type.String(),
          id: Type.String({ description: "The control's id in the widget's view." }),
          value: Type.Optional(
            Type.Union([Type.String(), Type.Boolean()], {
              description: "A toggle's boolean, a select's option, a text field's text; absent for a button.",
            }),
          ),
        },
        Closed,
      ),
      result: EmptyObject,
      errors: ["threadNotFound"],
      doc: "A press or change of a control in a widget's view; every ctx.ui.onViewEvent handler of the thread gets it. A gone widget or control answers {} and reaches nobody; a value that does not fit the control is invalidParams.",
    }),
  },
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
          view: Type.Optional(View),
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
