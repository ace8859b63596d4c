import type { Handler } from "../../../rpc/handler.js";
import { terminalsOf } from "../../../terminals/thread-terminals.js";

/** command/exec/resize: a running command's terminal gets a new size. */
export const handler: Handler<"command/exec/resize"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  terminalsOf(threads.require(params.threadId)).require(params.processId).resize(params.cols, params.rows);
  return {};
};
