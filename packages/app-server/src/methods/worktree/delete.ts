import { rpcError } from "../../rpc/errors.js";
import type { Handler } from "../../rpc/handler.js";
import { withWorktreeErrors } from "../../workspace/worktree-errors.js";
import { ServerWorktrees } from "../../threads/worktrees.js";

/**
 * worktree/delete: one managed worktree, after its snapshot. A path that
 * is not a managed worktree's own folder is invalidParams and nothing is
 * touched; one a thread is loaded in, or holding a nested repository, is
 * refused with gitConflict worktreeInUse or submodules.
 */
export const handler: Handler<"worktree/delete"> = async (params, ctx) => {
  const worktrees = await ctx.services.worktrees();
  const path = ServerWorktrees.resolvePath(params.path);
  const worktree = worktrees.all().find(({ record }) => record.path === path);
  if (!worktree) throw rpcError("invalidParams", `params.path: ${params.path} is not a managed worktree`);
  const threadId = worktree.record.threadIds.at(-1);
  return withWorktreeErrors(() => worktrees.delete(worktree, threadId === undefined ? undefined : { threadId, connection: ctx.connection }), "params.path");
};
