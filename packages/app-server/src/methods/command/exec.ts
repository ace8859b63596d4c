import type { Handler } from "../../rpc/handler.js";
import { startTerminal } from "../../terminals/start.js";

/** command/exec: the caller subscribes, the command starts, and its output follows the answer. */
export const handler: Handler<"command/exec"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const thread = threads.require(params.threadId);
  thread.subscribe(ctx.connection);
  const { processId, opened } = await startTerminal(thread, params, ctx.context.env);
  ctx.afterAnswer(opened);
  return { processId };
};
