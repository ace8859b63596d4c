import type { ThreadHandler } from "../threads/thread-handler.js";

/** model/list: every model the shared registry knows, extension providers included once a thread loaded them. */
export const listModels: ThreadHandler<"model/list"> = async (_params, _ctx, threads) => ({ models: await threads.registry.list() });
