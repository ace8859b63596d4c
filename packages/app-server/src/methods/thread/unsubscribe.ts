import type { Handler } from "../../rpc/handler.js";

export const handler: Handler<"thread/unsubscribe"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const thread = threads.get(params.threadId);
  return { status: thread?.unsubscribe(ctx.connection) ? "unsubscribed" : "notSubscribed" };
};
