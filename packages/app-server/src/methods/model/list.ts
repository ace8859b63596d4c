import type { Handler } from "../../rpc/handler.js";

/**
 * model/list: every model the shared registry knows, extension providers
 * included once a thread loaded them; narrowed by `available` and
 * `provider` when given.
 */
export const handler: Handler<"model/list"> = async (params, ctx) => {
  const registry = await ctx.services.registry();
  return {
    models: await registry.list({
      ...(params.available !== undefined ? { available: params.available } : {}),
      ...(params.provider !== undefined ? { provider: params.provider } : {}),
    }),
  };
};
