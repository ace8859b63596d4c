import { rpcError } from "../../../rpc/errors.js";
import type { Handler } from "../../../rpc/handler.js";

/** thread/name/set: one line, not blank; every connection hears thread/name/updated. */
export const handler: Handler<"thread/name/set"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const name = params.name.replace(/[\r\n\u2028\u2029]+/g, " ").trim();
  if (name === "") throw rpcError("invalidParams", "params.name must not be blank");
  threads.require(params.threadId).setName(name);
  return {};
};
