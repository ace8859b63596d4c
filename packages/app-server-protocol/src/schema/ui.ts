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
          threadId: Type.String({ description: "The thread's id." }),
          widgetKey: Type.String({ description: "The widget whose view the event came from." }),
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
          threadId: Type.String({ description: "The thread's id." }),
          statuses: Type.Array(
            Type.Object(
              { key: Type.String({ description: "The status line's key, chosen by the extension." }), text: Type.String({ description: "The text to show." }) },
              Closed,
            ),
            { description: "Sorted by key." },
          ),
          title: Type.Optional(Type.String({ description: "Absent: cleared." })),
          workingMessage: Type.Optional(Type.String({ description: "Absent: cleared." })),
          workingVisible: Type.Boolean({ description: "Whether the working indicator shows while a turn runs." }),
        },
        Closed,
      ),
      doc: "Every field of the thread's extension UI but the widgets, whole, whenever one changes; to subscribers.",
    }),
    "ui/widget": notification({
      params: Type.Object(
        {
          threadId: Type.String({ description: "The thread's id." }),
          key: Type.String({ description: "The widget's key, chosen by the extension." }),
          placement: Type.Optional({ ...Placement, description: "Above or below the editor; absent when removed." }),
          lines: Type.Optional(Type.Array(Type.String(), { description: "Text lines to show." })),
          view: Type.Optional(View),
        },
        Closed,
      ),
      doc: "One widget set or replaced (it moves to the end of its placement), or {threadId, key} alone when removed; to subscribers.",
    }),
    "ui/notify": notification({
      params: Type.Object(
        {
          threadId: Type.String({ description: "The thread's id." }),
          message: Type.String({ description: "The text to show." }),
          level: Type.Union([Type.Literal("info"), Type.Literal("warning"), Type.Literal("error")], { description: "How the client should show it." }),
        },
        Closed,
      ),
      doc: "A notice from an extension; to subscribers.",
    }),
  },
} as const;
