import type { Handler } from "../../../rpc/handler.js";
import { terminalsOf } from "../../../terminals/thread-terminals.js";

/** command/exec/terminate: answers at once; command/exec/exited follows once the command's processes are gone. */
export const handler: Handler<"command/exec/terminate"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  terminalsOf(threads.require(params.threadId)).require(params.processId).terminate();
  return {};
};
