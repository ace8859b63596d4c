import type { Handler } from "../../rpc/handler.js";
import { moveThread } from "../../threads/archive.js";

/**
 * thread/archive: moves an idle thread's transcript into the archived
 * folder. The checks that can refuse run before the thread unloads, so a
 * refusal leaves it loaded with its subscribers; the move itself rechecks
 * under both locks.
 */
export const handler: Handler<"thread/archive"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return threads.fenced(params.threadId, () => moveThread(threads, params.threadId, true, ctx.connection));
};
