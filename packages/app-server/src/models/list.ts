import type { ThreadHandler } from "../threads/thread-handler.js";

/**
 * model/list: every model the shared registry knows, extension providers
 * included once a thread loaded them; narrowed by `available` and
 * `provider` when given.
 */
export const listModels: ThreadHandler<"model/list"> = async (params, _ctx, threads) => ({
  models: await threads.registry.list({
    ...(params.available !== undefined ? { available: params.available } : {}),
    ...(params.provider !== undefined ? { provider: params.provider } : {}),
  }),
});
