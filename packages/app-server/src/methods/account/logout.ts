import { hasOAuthLogin } from "@knightcode/agent/models/oauth-logins";
import type { Handler } from "../../rpc/handler.js";
import { authFileError, unknownProvider } from "../../config/account-service.js";

/**
 * account/logout: removes the provider's entry from auth.json. A provider
 * the file holds is removed even when nothing knows it any more (its
 * models.json entry went); a key in the environment stays.
 */
export const handler: Handler<"account/logout"> = async (params, ctx) => {
  const service = await ctx.services.accounts();
  const { provider } = params;
  let existed: boolean;
  try {
    ({ existed } = await service.registry.auth.set(provider, undefined));
  } catch (error) {
    throw authFileError(error);
  }
  if (!existed) {
    if (!(await service.knows(provider)) && !(await hasOAuthLogin(provider))) throw unknownProvider(provider);
    return { removed: false };
  }
  ctx.log.info(`account: removed the stored credential of ${provider}`);
  service.announce();
  return { removed: true };
};
