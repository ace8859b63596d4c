import { commitPlan, planCommit } from "@knightcode/repo/git/ops/commit";
import type { Handler } from "../../rpc/handler.js";
import { messageFromModel } from "../../git/commit-message.js";
import { onThreadCheckout } from "../../git/thread-checkout.js";

/**
 * git/commit: plans the commit (staging everything in a copy of the
 * index when includeUnstaged), has the model write a missing message
 * without holding the checkout, then commits while it holds it, refusing
 * with concurrentChange if HEAD or the change moved meanwhile.
 */
export const handler: Handler<"git/commit"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return onThreadCheckout(threads, params.threadId, ctx.signal, async ({ git, thread, exclusive }) => {
    const given = params.message !== undefined && params.message.trim() !== "" ? params.message : undefined;
    const plan = await exclusive(() => planCommit(git, params.includeUnstaged ?? true));
    const message = given ?? (await messageFromModel(await ctx.services.registry(), thread, git, plan));
    const committed = await exclusive(() => commitPlan(git, plan, message));
    return { ...committed, generated: given === undefined };
  });
};
