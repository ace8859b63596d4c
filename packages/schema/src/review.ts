// A review turn's finding: what the model reported, checked against the diff it was shown.
import { type Static, Type } from "typebox";
import { Closed } from "./common.js";

export const FindingSeverity = Type.Union([Type.Literal("critical"), Type.Literal("high"), Type.Literal("medium"), Type.Literal("low"), Type.Literal("info")], {
  $id: "FindingSeverity",
});
export type FindingSeverity = Static<typeof FindingSeverity>;

/**
 * The fields of a finding a client sees. `path`, `hunkId`, `side`,
 * `startLine` and `endLine` are exactly a `turn/start` review comment's,
 * so a client sends them back as one with its own `text`.
 */
export const ReviewFinding = Type.Object(
  {
    findingId: Type.String({ description: "The finding's id in its thread: review/finding/apply takes it." }),
    path: Type.String({ description: "Relative to the repository root." }),
    hunkId: Type.String({ description: "The hunk of the reviewed diff the finding is on, at context 3." }),
    side: Type.Literal("new", { description: "Line numbers are the new side's, always." }),
    startLine: Type.Integer({ minimum: 1 }),
    endLine: Type.Integer({ minimum: 1 }),
    severity: FindingSeverity,
    title: Type.String(),
    body: Type.String(),
    suggestion: Type.Optional(Type.String({ description: "The text that should replace lines startLine..endLine; review/finding/apply writes it." })),
    lines: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "Lines startLine..endLine as the review read them, each without its newline: what a suggestion replaces. Within one hunk of the diff shown.",
      }),
    ),
  },
  { ...Closed, $id: "ReviewFinding" },
);
export type ReviewFinding = Static<typeof ReviewFinding>;

/** Where a review's diff came from: what applying a finding reads again. */
export interface ReviewSource {
  scope: "uncommitted" | "branch" | "committed" | "lastTurn";
  against?: string;
  commit?: string;
  turnId?: string;
  /** lastTurn: that turn's trees, so the diff reads again from a thread other than the turn's (a detached review's). */
  trees?: { before: string; after: string };
}

/**
 * What the transcript keeps of a finding, in its tool result's details
 * under `reviewFinding`: the finding, the diff it was read from, and the
 * lines it covers as the model saw them (each without its newline), so
 * that applying it can tell whether they changed since.
 */
export interface SavedFinding extends ReviewFinding {
  source: ReviewSource;
  lines: string[];
  /** The last of `lines` ends the file without a newline. */
  noNewlineAtEnd?: boolean;
}
