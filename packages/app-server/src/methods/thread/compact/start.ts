import type { Handler } from "../../../rpc/handler.js";

/** thread/compact/start: a turn of its own that only compacts the history. */
export const handler: Handler<"thread/compact/start"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const thread = threads.require(params.threadId);
  thread.lastInitiator = ctx.connection;
  return { status: "started", turnId: await thread.turns.compact(() => thread.subscribe(ctx.connection)) };
};
