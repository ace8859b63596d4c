import type { ThreadHandler } from "./thread-handler.js";

export const unsubscribeThread: ThreadHandler<"thread/unsubscribe"> = (params, ctx, threads) => {
  const thread = threads.get(params.threadId);
  return { status: thread?.unsubscribe(ctx.connection) ? "unsubscribed" : "notSubscribed" };
};
