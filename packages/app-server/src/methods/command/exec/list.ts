import type { Handler } from "../../../rpc/handler.js";
import { terminalsOf } from "../../../terminals/thread-terminals.js";

/** command/exec/list: the thread's commands still running. */
export const handler: Handler<"command/exec/list"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return { processes: terminalsOf(threads.require(params.threadId)).list() };
};
