// A checkout's git state.
import { type Static, Type } from "typebox";
import { Closed } from "./common.js";

export const BranchName = Type.String({ minLength: 1, maxLength: 255, description: "A local branch's short name, such as feature/login." });

export const Operation = Type.Union(
  [Type.Literal("merge"), Type.Literal("rebase"), Type.Literal("cherryPick"), Type.Literal("revert"), Type.Literal("bisect")],
  {
    description: "An operation git stopped in the middle of: the user continues or aborts it.",
  },
);

export const GitStatus = Type.Object(
  {
    branch: Type.Union([BranchName, Type.Null()], { description: "The branch HEAD is on; null when HEAD is detached." }),
    upstream: Type.Union([Type.String(), Type.Null()], { description: "The branch's upstream as <remote>/<branch>, such as origin/main; null without one." }),
    ahead: Type.Integer({ minimum: 0, description: "Commits on HEAD the upstream lacks; 0 without an upstream." }),
    behind: Type.Integer({ minimum: 0, description: "Commits on the upstream HEAD lacks; 0 without an upstream." }),
    staged: Type.Integer({ minimum: 0, description: "Files with staged changes." }),
    unstaged: Type.Integer({ minimum: 0, description: "Tracked files with changes not staged (a file may count here and in staged)." }),
    untracked: Type.Integer({ minimum: 0, description: "Untracked files, each file counted; ignored files are not." }),
    conflicted: Type.Integer({ minimum: 0, description: "Files with unresolved conflicts." }),
    operation: Type.Union([Operation, Type.Null()], { description: "A merge, rebase or the like in progress; null when none is." }),
  },
  Closed,
);
export type GitStatus = Static<typeof GitStatus>;
