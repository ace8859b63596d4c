import { rpcError } from "../rpc/errors.js";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { withWorktreeErrors } from "./worktree-errors.js";
import { ServerWorktrees } from "./worktree-service.js";

/**
 * worktree/delete: one managed worktree, after its snapshot. A path that
 * is not a managed worktree's own folder is invalidParams and nothing is
 * touched; one a thread is loaded in, or holding a nested repository, is
 * refused with gitConflict worktreeInUse or submodules.
 */
export const deleteManagedWorktree: ThreadHandler<"worktree/delete"> = async (params, ctx, threads) => {
  const path = ServerWorktrees.resolvePath(params.path);
  const worktree = threads.worktrees.all().find(({ record }) => record.path === path);
  if (!worktree) throw rpcError("invalidParams", `params.path: ${params.path} is not a managed worktree`);
  const threadId = worktree.record.threadIds.at(-1);
  return withWorktreeErrors(() => threads.worktrees.delete(worktree, threadId === undefined ? undefined : { threadId, connection: ctx.connection }), "params.path");
};
