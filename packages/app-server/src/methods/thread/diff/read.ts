import { readDiff } from "@knightcode/repo/git/diff/read";
import type { GitContext } from "@knightcode/repo/git/ops/context";
import type { TurnTrees } from "@knightcode/repo/git/diff/snapshot";
import type { Handler } from "../../../rpc/handler.js";
import type { LoadedThread } from "../../../threads/loaded-thread.js";
import { lastTurnTrees, threadGit, turnTreesOf, withDiffErrors, worktreeBaseOf } from "../../../workspace/diff-context.js";

/**
 * thread/diff/read: one scope of the thread's checkout's changes; no lock
 * taken, the index never written. lastTurn with `turnId` reads that turn
 * of the thread instead of the last one (beyond the spec).
 */
export const handler: Handler<"thread/diff/read"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return threads.using(params.threadId, (thread) =>
    withDiffErrors(async () => {
      const git = await threadGit(thread, ctx.context.env, ctx.signal);
      const lastTurn = params.scope === "lastTurn" ? await shownTurn(thread, git, params.turnId) : undefined;
      const { threadId: _threadId, ...request } = params;
      // The files' JSON is made while git writes: an answer of thousands of files is then written out as it is joined.
      return (await readDiff(git, { ...request, ...worktreeBaseOf(thread), ...(lastTurn ? { lastTurn } : {}) }, { json: true })).answer;
    }),
  );
};

/** The turn a lastTurn read shows: the one asked for, else the last with snapshots. */
function shownTurn(thread: LoadedThread, git: GitContext, turnId: string | undefined): Promise<TurnTrees | undefined> {
  return turnId === undefined ? lastTurnTrees(thread) : turnTreesOf(thread, git, turnId);
}
