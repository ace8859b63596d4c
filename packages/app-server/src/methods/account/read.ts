import { rpcError } from "../../rpc/errors.js";
import type { Handler } from "../../rpc/handler.js";

/** account/read: who has a credential and of which kind; never the credential. */
export const handler: Handler<"account/read"> = async (_params, ctx) => {
  const { accounts, problem } = await (await ctx.services.accounts()).accounts();
  if (problem !== undefined) throw rpcError("internal", `${problem}; fix or remove it`);
  return { accounts };
};
