import { rpcError } from "../rpc/errors.js";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { accountService } from "./account-service.js";

/** account/read: who has a credential and of which kind; never the credential. */
export const readAccounts: ThreadHandler<"account/read"> = async (_params, ctx, threads) => {
  const { accounts, problem } = await accountService(ctx, threads).accounts();
  if (problem !== undefined) throw rpcError("internal", `${problem}; fix or remove it`);
  return { accounts };
};
