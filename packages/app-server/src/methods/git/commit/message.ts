import { planCommit } from "@knightcode/repo/git/ops/commit";
import type { Handler } from "../../../rpc/handler.js";
import { messageFromModel } from "../../../git/commit-message.js";
import { onThreadCheckout } from "../../../git/thread-checkout.js";

/**
 * git/commit/message (beyond the spec): the message git/commit would have
 * the model write, answered for the user to edit. The plan stages only in
 * a copy of the index, so nothing the user sees changes; and, like
 * git/status, it reads without holding the checkout, since a draft taken
 * during a turn harms nothing (git/commit checks the change again).
 */
export const handler: Handler<"git/commit/message"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return onThreadCheckout(threads, params.threadId, ctx.signal, async ({ git, thread }) => {
    const plan = await planCommit(git, params.includeUnstaged ?? true);
    return { message: await messageFromModel(await ctx.services.registry(), thread, git, plan) };
  });
};
