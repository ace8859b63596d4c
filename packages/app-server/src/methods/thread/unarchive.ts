import type { Handler } from "../../rpc/handler.js";
import { moveThread } from "../../threads/archive.js";

/** thread/unarchive: moves a transcript back into the active folder. */
export const handler: Handler<"thread/unarchive"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return threads.fenced(params.threadId, () => moveThread(threads, params.threadId, false, ctx.connection));
};
