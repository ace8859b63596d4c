import type { Handler } from "../../rpc/handler.js";
import { startTerminal } from "../../terminals/start.js";

/** command/exec: the command starts, the caller subscribes, and the command's output follows the answer. */
export const handler: Handler<"command/exec"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const thread = threads.require(params.threadId);
  const { processId, opened } = await startTerminal(thread, params, ctx.context.env);
  thread.subscribe(ctx.connection);
  ctx.afterAnswer(opened);
  return { processId };
};
