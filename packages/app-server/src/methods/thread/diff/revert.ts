import { revertDiff } from "@knightcode/repo/git/diff/revert";
import type { Handler } from "../../../rpc/handler.js";
import { exclusiveInCheckout } from "../../../git/checkout.js";
import { lastTurnTrees, threadGit, withDiffErrors, worktreeBaseOf } from "../../../workspace/diff-context.js";

/**
 * thread/diff/revert: with every thread of the checkout held (a running
 * turn refuses it, and no turn or tool starts until it is done), the diff
 * is read again and the change reverse-applied to the working tree.
 */
export const handler: Handler<"thread/diff/revert"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return threads.using(params.threadId, (thread) =>
    withDiffErrors(async () => {
      const git = await threadGit(thread, ctx.context.env);
      const { threadId: _threadId, ...request } = params;
      return exclusiveInCheckout(threads.loadedThreads(), git.repo.root, async () => {
        const lastTurn = (params.scope ?? "uncommitted") === "lastTurn" ? await lastTurnTrees(thread) : undefined;
        return revertDiff(git, { ...request, ...worktreeBaseOf(thread), ...(lastTurn ? { lastTurn } : {}) });
      });
    }),
  );
};
