import { Type } from "typebox";
import { Closed } from "./common.js";
import { notification, request } from "./define.js";
import { reasons } from "../reasons.js";
import { DiffAnswer, DiffScope } from "@knightcode/schema/diffs";
import { FileTotals } from "@knightcode/schema/threads";

const ThreadId = Type.String({ minLength: 1, maxLength: 128, description: "The thread's id." });
const RepoPath = Type.String({ minLength: 1, maxLength: 4096, description: "Relative to the repository root, with `/` separators; taken literally." });
const HunkId = Type.String({ minLength: 1, maxLength: 128, description: "A hunk's id from a read of the same scope and context." });
const Context = Type.Integer({
  minimum: 0,
  maximum: 100,
  description: "Lines of context around each change; 3 by default. Ids from a context-0 read match no action.",
});

export const ReviewCommentInput = Type.Object(
  {
    path: RepoPath,
    hunkId: HunkId,
    side: Type.Optional(
      Type.Union([Type.Literal("new"), Type.Literal("old")], { description: "Which side's line numbers startLine and endLine are; new by default." }),
    ),
    startLine: Type.Integer({ minimum: 1 }),
    endLine: Type.Integer({ minimum: 1 }),
    text: Type.String({ minLength: 1, maxLength: 8192, description: "At most 8 KiB of UTF-8." }),
  },
  { ...Closed, $id: "ReviewCommentInput" },
);

/** At most 50 per input. */
export const ReviewComments = Type.Array(ReviewCommentInput, {
  maxItems: 50,
  description:
    "Review comments on hunks of the current diff, at most 50; the server quotes the commented lines. A hunk id that matches nothing answers invalidParams.",
});

const Paths = Type.Object(
  { paths: Type.Array(Type.String(), { description: "The files the action changed, relative to the repository root (a rename's both paths)." }) },
  Closed,
);

const ScopeParams = {
  scope: Type.Optional(DiffScope),
  against: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "branch: the ref to compare with (its merge base with HEAD)." })),
  commit: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "committed: the commit, compared with its first parent." })),
  context: Type.Optional(Context),
};

/** git/stage and git/unstage: everything, a literal path, or one hunk by its id at the context it was read with. */
const IndexChangeParams = Type.Object(
  { threadId: ThreadId, path: Type.Optional(RepoPath), hunkId: Type.Optional(HunkId), context: Type.Optional(Context) },
  Closed,
);

export const diffs = {
  clientRequests: {
    "thread/diff/read": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          ...ScopeParams,
          ignoreWhitespace: Type.Optional(Type.Boolean({ description: "Leaves out changes of whitespace only." })),
          turnId: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 128,
              description:
                "lastTurn only (beyond the spec): that turn of the thread rather than the last one. No files for a turn that changed none or took no snapshot; invalidParams for an id that is no turn of the thread, or a turn whose snapshot is no longer kept.",
            }),
          ),
        },
        Closed,
      ),
      result: DiffAnswer,
      errors: ["threadNotFound", "notGitRepo"],
      doc: "The thread's checkout's changes in one scope (uncommitted by default). Reads take no lock and never write the index. committed needs commit; branch compares with against, else the worktree's base, the upstream or the default branch (invalidParams when there is none). lastTurn with turnId reads that turn (stale as for the last turn); turnId with another scope is invalidParams.",
    }),
    "thread/diff/revert": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          ...ScopeParams,
          path: Type.Optional(RepoPath),
          hunkId: Type.Optional(HunkId),
          reapply: Type.Optional(Type.Boolean({ description: "lastTurn only, without hunkId: apply the turn's changes again." })),
          turnId: Type.Optional(
            Type.String({ minLength: 1, maxLength: 128, description: "lastTurn only: another last turn answers gitConflict diffChanged." }),
          ),
        },
        Closed,
      ),
      result: Paths,
      errors: ["threadNotFound", "notGitRepo", "turnInProgress", "gitConflict"],
      reasons: reasons("diffChanged", "patchFailed"),
      doc: "Reverse-applies one hunk, one file or the whole scope to the working tree. Renamed, added, deleted, binary and mode-changed files revert whole; reverting an added file deletes it. lastTurn undoes (or with reapply redoes) the turn only while its files are exactly as it left (found) them. Refused while a turn runs in the checkout. invalidParams for staged and committed or a path outside the diff; gitConflict diffChanged or patchFailed.",
    }),
    "git/stage": request({
      params: IndexChangeParams,
      result: Paths,
      errors: ["threadNotFound", "notGitRepo", "turnInProgress", "gitConflict"],
      reasons: reasons("diffChanged", "patchFailed"),
      doc: "Stages everything (no path), one path, or one hunk of an unstaged read. A hunk id that matches nothing answers gitConflict diffChanged.",
    }),
    "git/unstage": request({
      params: IndexChangeParams,
      result: Paths,
      errors: ["threadNotFound", "notGitRepo", "turnInProgress", "gitConflict"],
      reasons: reasons("diffChanged", "patchFailed"),
      doc: "Unstages everything (no path), one path, or one hunk of a staged read. A hunk id that matches nothing answers gitConflict diffChanged.",
    }),
  },
  serverNotifications: {
    "turn/diff/updated": notification({
      params: Type.Object(
        { threadId: Type.String({ description: "The thread's id." }), turnId: Type.String({ description: "The turn's id." }), files: Type.Array(FileTotals) },
        Closed,
      ),
      doc: "After turn/completed: the net line totals of each file that changed in the thread's git checkout while the turn ran; not sent when none changed, nor outside git. To subscribers.",
    }),
  },
} as const;
