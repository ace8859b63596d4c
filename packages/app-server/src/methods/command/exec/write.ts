import type { Handler } from "../../../rpc/handler.js";
import { terminalsOf } from "../../../terminals/thread-terminals.js";

/** command/exec/write: bytes (base64) to a running command's input, then perhaps its end. */
export const handler: Handler<"command/exec/write"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const terminal = terminalsOf(threads.require(params.threadId)).require(params.processId);
  terminal.write(Buffer.from(params.data, "base64"), params.closeStdin === true);
  return {};
};
