import { readDiff } from "@knightcode/repo/git/diff/read";
import type { Handler } from "../../../rpc/handler.js";
import { lastTurnTrees, threadGit, withDiffErrors, worktreeBaseOf } from "../../../workspace/diff-context.js";

/** thread/diff/read: one scope of the thread's checkout's changes; no lock taken, the index never written. */
export const handler: Handler<"thread/diff/read"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return threads.using(params.threadId, (thread) =>
    withDiffErrors(async () => {
      const git = await threadGit(thread, ctx.context.env, ctx.signal);
      const lastTurn = params.scope === "lastTurn" ? await lastTurnTrees(thread) : undefined;
      const { threadId: _threadId, ...request } = params;
      return (await readDiff(git, { ...request, ...worktreeBaseOf(thread), ...(lastTurn ? { lastTurn } : {}) })).answer;
    }),
  );
};
