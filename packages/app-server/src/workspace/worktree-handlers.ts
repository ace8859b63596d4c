import type { ThreadHandlers } from "../threads/thread-handler.js";
import { handoffThread } from "./handoff.js";
import { deleteManagedWorktree } from "./worktree-delete.js";
import { listWorktrees } from "./worktree-list.js";
import { restoreThreadWorktree } from "./worktree-restore.js";

/** The worktree methods; thread/start's workspace and archiving's deletion live with their methods and call the same service. */
export const worktreeHandlers = {
  "thread/handoff": handoffThread,
  "thread/worktree/restore": restoreThreadWorktree,
  "worktree/list": listWorktrees,
  "worktree/delete": deleteManagedWorktree,
} satisfies ThreadHandlers;
