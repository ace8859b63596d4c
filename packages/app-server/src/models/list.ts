import type { ThreadHandler } from "../threads/thread-handler.js";

export const listModels: ThreadHandler<"model/list"> = async (_params, ctx, threads) => {
  const models = await threads.registry.list();
  return { models };
};
