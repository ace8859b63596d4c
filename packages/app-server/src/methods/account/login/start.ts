import { LoginError, hasOAuthLogin } from "@knightcode/agent/models/oauth-logins";
import { rpcError } from "../../../rpc/errors.js";
import type { Handler } from "../../../rpc/handler.js";
import { authFileError, unknownProvider } from "../../../config/account-service.js";

/**
 * account/login/start: with `apiKey`, stores it for a provider the registry
 * knows and answers at once; without, starts the provider's OAuth login and
 * answers with its URL. The schema already refused a key with whitespace,
 * control characters or over 4096 characters, without quoting it.
 */
export const handler: Handler<"account/login/start"> = async (params, ctx) => {
  const service = await ctx.services.accounts();
  const { provider, apiKey } = params;
  if (apiKey !== undefined) {
    if (!(await service.knows(provider))) throw unknownProvider(provider);
    try {
      await service.registry.auth.set(provider, { type: "api_key", key: apiKey });
    } catch (error) {
      throw authFileError(error);
    }
    ctx.log.info(`account: stored an API key for ${provider}`);
    service.announce();
    return { kind: "apiKey" };
  }
  if (!(await hasOAuthLogin(provider))) {
    if (await service.knows(provider)) throw rpcError("invalidParams", `params.apiKey: ${provider} has no OAuth login; give its API key`);
    throw unknownProvider(provider);
  }
  try {
    return { kind: "oauth", ...(await service.logins.start(provider, ctx.signal)) };
  } catch (error) {
    if (error instanceof LoginError) throw rpcError(error.code === "stopped" ? "shuttingDown" : "internal", error.message);
    throw error;
  }
};
