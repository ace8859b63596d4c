import { Type } from "typebox";
import { Closed } from "./common.js";
import { notification, request } from "./define.js";
import { reasons } from "../reasons.js";

const ThreadId = Type.String({ minLength: 1, maxLength: 128, description: "The thread's id." });

/** thread/fork's `turnId` (beyond the spec). */
export const AtTurn = Type.String({
  minLength: 1,
  maxLength: 128,
  description:
    "Beyond the spec: the new thread's history stops just before this turn of the source's branch; with workspace worktree, the new worktree's files are as the turn found them. invalidParams for an id that is no turn of the branch.",
});

/** thread/read's `leafId` (beyond the spec). */
export const LeafId = Type.String({
  minLength: 1,
  maxLength: 128,
  description:
    "Beyond the spec: read the branch that ends at this entry (a thread/rewind answer's previousLeafId) instead of the current one; nextCursor pages on along it. invalidParams for an id the transcript does not hold.",
});

export const RewoundFile = Type.Object(
  {
    path: Type.String({ description: "Relative to the repository root, with `/` separators." }),
    status: Type.Union([Type.Literal("added"), Type.Literal("modified"), Type.Literal("deleted")], {
      description: "What the rewind did to it: added (it came back), modified (its content or mode went back), deleted (the turns had created it).",
    }),
  },
  { ...Closed, $id: "RewoundFile" },
);

const RewindMode = Type.Union([Type.Literal("conversation"), Type.Literal("code"), Type.Literal("both")], {
  description:
    "conversation: a new branch of the history before the turn; code: the files the turns changed as the turn found them; both: code, then conversation.",
});

const Rewound = {
  files: Type.Array(RewoundFile, { description: "The files the rewind changed in the working tree, by path; empty for conversation." }),
  previousLeafId: Type.Optional(
    Type.String({
      description: "conversation and both: the last entry of the branch left behind, which stays in the transcript; thread/read with leafId reads it.",
    }),
  ),
};

export const rewind = {
  clientRequests: {
    "thread/rewind": request({
      params: Type.Object(
        {
          threadId: ThreadId,
          turnId: Type.String({ minLength: 1, maxLength: 128, description: "The first turn undone: it and every later turn of the branch." }),
          mode: RewindMode,
          force: Type.Optional(Type.Boolean({ description: "code and both: restore over files edited since the last undone turn ended, losing those edits." })),
        },
        Closed,
      ),
      result: Type.Object(Rewound, Closed),
      errors: ["threadNotFound", "turnInProgress", "notGitRepo", "gitConflict"],
      reasons: reasons("diffChanged"),
      doc: "Beyond the spec: takes a thread back to just before one of its turns. conversation: the history branches again before the turn (the old branch is kept; the thread reloads, thread/replaced with the same id). code: every file the undone turns changed (through any tool) goes back to the turn's before-snapshot; a file edited since the last of them ended refuses it with gitConflict diffChanged (data.paths) unless force. both: code first. Refused while a turn runs in the thread or its checkout; invalidParams for an unknown turn or, for code, a turn without a snapshot. Subscribers get thread/rewound.",
    }),
  },
  serverNotifications: {
    "thread/rewound": notification({
      params: Type.Object(
        {
          threadId: Type.String({ description: "The thread's id." }),
          turnId: Type.String({ description: "The first turn undone." }),
          mode: RewindMode,
          ...Rewound,
        },
        Closed,
      ),
      doc: "Beyond the spec: a thread was rewound (thread/rewind): what its answer said. To the thread's subscribers, after thread/replaced when the conversation moved.",
    }),
  },
} as const;
