import type { Handler } from "../rpc/handler.js";

export const listModels: Handler<"model/list"> = async (_params, ctx) => {
  const models = await ctx.server.threads.registry.list();
  return { models };
};
