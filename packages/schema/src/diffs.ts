// A diff as thread/diff/read answers it.
import { type Static, Type } from "typebox";
import { Closed } from "./common.js";

const Line = Type.Integer({ minimum: 0 });

export const DiffScope = Type.Union(
  [Type.Literal("uncommitted"), Type.Literal("unstaged"), Type.Literal("staged"), Type.Literal("committed"), Type.Literal("branch"), Type.Literal("lastTurn")],
  {
    $id: "DiffScope",
    description:
      "Which changes: uncommitted (staged and not), unstaged, staged, committed on the branch, the whole branch against its base, or the last turn's.",
  },
);
export type DiffScope = Static<typeof DiffScope>;

export const DiffHunk = Type.Object(
  {
    id: Type.String({
      description:
        "A content hash of the file's header and this hunk at the read's context: `c<context>-...`, or `w<context>-...` from a whitespace-blind read (it matches no action).",
    }),
    oldStart: Line,
    oldLines: Line,
    newStart: Line,
    newLines: Line,
    lines: Type.Array(Type.String(), { description: 'Each line with its " ", "+", "-" or "\\" prefix and without its newline (a CR stays).' }),
  },
  { ...Closed, $id: "DiffHunk" },
);
export type DiffHunk = Static<typeof DiffHunk>;

export const DiffFile = Type.Object(
  {
    path: Type.String({ description: "Relative to the repository root." }),
    oldPath: Type.Optional(Type.String({ description: "A renamed file's old path." })),
    status: Type.Union([Type.Literal("added"), Type.Literal("modified"), Type.Literal("deleted"), Type.Literal("renamed")], {
      description: "An untracked file is added; a mode-only change is modified with 0 additions and 0 deletions.",
    }),
    binary: Type.Boolean({ description: "Binary files have no hunks." }),
    additions: Line,
    deletions: Line,
    tooLarge: Type.Optional(Type.Boolean({ description: "Past the response budget: the counts stay, the hunks are left out." })),
    hunks: Type.Array(DiffHunk),
  },
  { ...Closed, $id: "DiffFile", description: "One changed file with its hunks." },
);
export type DiffFile = Static<typeof DiffFile>;

/** A diff as `thread/diff/read` answers it: the agent builds it, the protocol sends it. */
export const DiffAnswer = Type.Object(
  {
    scope: DiffScope,
    root: Type.String({ description: "The repository's working tree root: every path is relative to it." }),
    files: Type.Array(DiffFile),
    filesOmitted: Type.Optional(Type.Integer({ minimum: 1, description: "Files past the response budget, only counted." })),
    untrackedSkipped: Type.Optional(Type.Integer({ minimum: 1, description: "More than 500 untracked files: none is shown, all are counted here." })),
    turnId: Type.Optional(Type.String({ description: "lastTurn: the turn shown." })),
    stale: Type.Optional(Type.Boolean({ description: "lastTurn: a file the turn changed is no longer as the turn left it (undo would be refused)." })),
    against: Type.Optional(Type.String({ description: "branch: what the working tree was compared with." })),
  },
  Closed,
);
export type DiffAnswer = Static<typeof DiffAnswer>;
