import { revertDiff } from "@knightcode/agent";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { exclusiveInCheckout } from "./checkout.js";
import { lastTurnTrees, threadGit, withDiffErrors, worktreeBaseOf } from "./diff-context.js";

/**
 * thread/diff/revert: with every thread of the checkout held (a running
 * turn refuses it, and no turn or tool starts until it is done), the diff
 * is read again and the change reverse-applied to the working tree.
 */
export const revertThreadDiff: ThreadHandler<"thread/diff/revert"> = async (params, _ctx, threads) => {
  return threads.using(params.threadId, (thread) =>
    withDiffErrors(async () => {
      const git = await threadGit(thread, threads.context.env);
      const { threadId: _threadId, ...request } = params;
      return exclusiveInCheckout(threads.loadedThreads(), git.repo.root, async () => {
        const lastTurn = (params.scope ?? "uncommitted") === "lastTurn" ? await lastTurnTrees(thread) : undefined;
        return revertDiff(git, { ...request, ...worktreeBaseOf(thread), ...(lastTurn ? { lastTurn } : {}) });
      });
    }),
  );
};
