import type { ThreadHandlers } from "../threads/thread-handler.js";
import { gitBranchCreate, gitBranches, gitBranchSwitch } from "./branches.js";
import { gitCommit } from "./commit.js";
import { gitLog } from "./log.js";
import { gitPrCreate } from "./pr-create.js";
import { gitPush } from "./push.js";
import { gitStatus } from "./status.js";

/** git/*: status, commit, push, pull requests, branches and log of a thread's own checkout. */
export const gitHandlers = {
  "git/status": gitStatus,
  "git/commit": gitCommit,
  "git/push": gitPush,
  "git/pr/create": gitPrCreate,
  "git/branches": gitBranches,
  "git/branch/create": gitBranchCreate,
  "git/branch/switch": gitBranchSwitch,
  "git/log": gitLog,
} satisfies ThreadHandlers;
