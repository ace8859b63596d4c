// Records inside a turn's items: file changes and review comments.
import { type Static, Type } from "typebox";
import { Closed } from "./common.js";

export const FileChange = Type.Object(
  {
    path: Type.String(),
    kind: Type.Union([Type.Literal("add"), Type.Literal("modify"), Type.Literal("delete")]),
    diff: Type.Optional(Type.String({ description: "A unified diff of the change." })),
  },
  { ...Closed, $id: "FileChange" },
);
export type FileChange = Static<typeof FileChange>;

export const ReviewComment = Type.Object(
  {
    path: Type.String({ description: "Relative to the repository root." }),
    side: Type.Union([Type.Literal("new"), Type.Literal("old")]),
    startLine: Type.Integer({ minimum: 1 }),
    endLine: Type.Integer({ minimum: 1 }),
    text: Type.String(),
    quote: Type.String({ description: "The commented lines as the reviewed hunk had them, each with its diff prefix, joined by newlines." }),
  },
  { ...Closed, $id: "ReviewComment" },
);
export type ReviewComment = Static<typeof ReviewComment>;
