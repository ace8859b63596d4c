import { readLog, resolveLogBase } from "@knightcode/repo/git/ops/log";
import type { Handler } from "../../rpc/handler.js";
import { onThreadCheckout } from "../../git/thread-checkout.js";

/** git/log: the commits since the base the committed scope uses, newest first. */
export const handler: Handler<"git/log"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return onThreadCheckout(threads, params.threadId, ctx.signal, async ({ git, thread }) => {
    // A worktree thread's branch starts where its worktree was made.
    const { place } = thread;
    const base = await resolveLogBase(git, place.mode === "worktree" ? place.baseRef : undefined);
    const log = await readLog(git, { ...(base ? { base: base.sha } : {}), ...(params.limit !== undefined ? { limit: params.limit } : {}) });
    return { ...log, ...(base ? { base } : {}) };
  });
};
