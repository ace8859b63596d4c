import { threadCreated } from "../../threads/created.js";
import type { Handler } from "../../rpc/handler.js";

/** thread/fork: a new thread with the source's history, named after it; the caller subscribes. */
export const handler: Handler<"thread/fork"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const thread = await threads.fork(params.threadId);
  thread.subscribe(ctx.connection);
  return threadCreated(thread);
};
