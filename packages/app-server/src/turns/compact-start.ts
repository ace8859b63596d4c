import type { ThreadHandler } from "../threads/thread-handler.js";

/** thread/compact/start: a turn of its own that only compacts the history. */
export const startCompaction: ThreadHandler<"thread/compact/start"> = async (params, ctx, threads) => {
  const thread = threads.require(params.threadId);
  thread.lastInitiator = ctx.connection;
  return { status: "started", turnId: await thread.turns.compact(() => thread.subscribe(ctx.connection)) };
};
