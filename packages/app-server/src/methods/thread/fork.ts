import { threadCreated } from "../../threads/created.js";
import type { Handler } from "../../rpc/handler.js";
import { forkAt } from "../../workspace/fork-at.js";

/** thread/fork: a new thread with the source's history, named after it; the caller subscribes. At a turn or into a workspace: workspace/fork-at.ts. */
export const handler: Handler<"thread/fork"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  if (params.turnId !== undefined || params.workspace !== undefined) return forkAt(threads, params, ctx.connection);
  const thread = await threads.fork(params.threadId);
  thread.subscribe(ctx.connection);
  return threadCreated(thread);
};
