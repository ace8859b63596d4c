import type { Handler } from "../../../rpc/handler.js";

/** turn/queue/remove: takes a queued input back before it starts. */
export const handler: Handler<"turn/queue/remove"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return { removed: threads.require(params.threadId).turns.queueRemove(params.queueId) };
};
