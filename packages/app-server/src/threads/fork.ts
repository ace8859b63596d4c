import { threadCreated } from "./start.js";
import type { ThreadHandler } from "./thread-handler.js";

/** thread/fork: a new thread with the source's history, named after it; the caller subscribes. */
export const forkThread: ThreadHandler<"thread/fork"> = async (params, ctx, threads) => {
  const thread = await threads.fork(params.threadId);
  thread.subscribe(ctx.connection);
  return threadCreated(thread);
};
