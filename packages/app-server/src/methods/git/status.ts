import { readStatus } from "@knightcode/repo/git/ops/status";
import type { Handler } from "../../rpc/handler.js";
import { onThreadCheckout } from "../../git/thread-checkout.js";

/** git/status: the checkout's branch, upstream, change counts and operation in progress; reads only. */
export const handler: Handler<"git/status"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return onThreadCheckout(threads, params.threadId, ctx.signal, ({ git }) => readStatus(git));
};
