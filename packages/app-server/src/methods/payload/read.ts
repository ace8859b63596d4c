import type { Handler } from "../../rpc/handler.js";
import { PayloadError, payloadWireError } from "../../payloads/errors.js";

/** `payload/read`: one chunk of a reference the server issued. */
export const handler: Handler<"payload/read"> = async (params, ctx) => {
  try {
    return await ctx.context.payloads.read(params.id, params.offset);
  } catch (error) {
    throw error instanceof PayloadError ? payloadWireError(error) : error;
  }
};
