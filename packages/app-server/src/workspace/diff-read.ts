import { readDiff } from "@knightcode/agent";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { lastTurnTrees, threadGit, withDiffErrors, worktreeBaseOf } from "./diff-context.js";

/** thread/diff/read: one scope of the thread's checkout's changes; no lock taken, the index never written. */
export const readThreadDiff: ThreadHandler<"thread/diff/read"> = (params, ctx, threads) => {
  return threads.using(params.threadId, (thread) =>
    withDiffErrors(async () => {
      const git = await threadGit(thread, threads.context.env, ctx.signal);
      const lastTurn = params.scope === "lastTurn" ? await lastTurnTrees(thread) : undefined;
      const { threadId: _threadId, ...request } = params;
      return (await readDiff(git, { ...request, ...worktreeBaseOf(thread), ...(lastTurn ? { lastTurn } : {}) })).answer;
    }),
  );
};
