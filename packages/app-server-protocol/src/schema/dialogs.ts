import { Type } from "typebox";
import { Closed } from "./common.js";
import { request } from "./define.js";

const Question = Type.Object(
  {
    id: Type.String(),
    text: Type.String(),
    options: Type.Array(
      Type.Object(
        { label: Type.String({ description: 'Ends with " (Recommended)" for the recommended option.' }), description: Type.Optional(Type.String()) },
        Closed,
      ),
      { minItems: 1 },
    ),
  },
  { ...Closed, $id: "UserQuestion" },
);

export const UserAnswer = Type.Union(
  [
    Type.Object({ label: Type.String({ description: "The chosen option's exact label." }), note: Type.Optional(Type.String()) }, Closed),
    Type.Object({ other: Type.String({ description: "The user's own answer." }) }, Closed),
  ],
  { $id: "UserAnswer" },
);

const DialogBase = {
  threadId: Type.String({ description: "The thread's id." }),
  turnId: Type.Optional(Type.String({ description: "The running turn, when the dialog belongs to one." })),
  title: Type.String({ description: "One line, at most 200 code points." }),
};

const DialogKind = { description: "Which dialog: select, confirm, input or editor." };

export const SelectDialog = Type.Object(
  {
    ...DialogBase,
    kind: Type.Literal("select", DialogKind),
    options: Type.Array(Type.String(), { minItems: 1, description: "The choices; the answer's value is one of them." }),
  },
  { ...Closed, $id: "SelectDialog", description: "Pick one of the options." },
);

export const ConfirmDialog = Type.Object(
  { ...DialogBase, kind: Type.Literal("confirm", DialogKind), message: Type.String({ description: "The question to confirm." }) },
  { ...Closed, $id: "ConfirmDialog", description: "Yes or no." },
);

export const InputDialog = Type.Object(
  { ...DialogBase, kind: Type.Literal("input", DialogKind), placeholder: Type.Optional(Type.String({ description: "Hint text for the empty field." })) },
  { ...Closed, $id: "InputDialog", description: "One line of text." },
);

export const EditorDialog = Type.Object(
  { ...DialogBase, kind: Type.Literal("editor", DialogKind), prefill: Type.Optional(Type.String({ description: "The editor's starting text." })) },
  { ...Closed, $id: "EditorDialog", description: "Multi-line text." },
);

export const DialogParams = Type.Union([SelectDialog, ConfirmDialog, InputDialog, EditorDialog], {
  $id: "DialogParams",
  description: "A dialog; kind says which.",
});

export const dialogs = {
  serverRequests: {
    "item/toolCall/requestUserInput": request({
      params: Type.Object(
        {
          threadId: Type.String({ description: "The thread's id." }),
          turnId: Type.String({ description: "The turn's id." }),
          itemId: Type.String({ description: "The ask_user call's item id." }),
          questions: Type.Array(Question, { minItems: 1, description: "All of the call's questions, as the model gave them." }),
        },
        Closed,
      ),
      result: Type.Object(
        {
          answers: Type.Optional(
            Type.Record(Type.String(), UserAnswer, {
              description: "By question id; a skipped question is left out. Absent: the questions are dismissed and the turn stops.",
            }),
          ),
        },
        Closed,
      ),
      doc: "Asks one subscriber ask_user's questions, all at once; moved and withdrawn as approvals are.",
    }),
    "ui/dialog": request({
      params: DialogParams,
      result: Type.Object(
        {
          value: Type.Optional(Type.String({ description: "A select's chosen option, an input's or an editor's text." })),
          confirmed: Type.Optional(Type.Boolean({ description: "A confirm's answer." })),
        },
        Closed,
      ),
      doc: "An extension's or a built-in feature's question (select, confirm, input, editor); {} cancels. Moved and withdrawn as approvals are.",
    }),
  },
} as const;
