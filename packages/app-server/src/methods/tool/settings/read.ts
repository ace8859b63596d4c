import { readToolSettings } from "@knightcode/agent/tools/tool-settings";
import { toolSettingsError } from "../../../config/tool-settings.js";
import type { Handler } from "../../../rpc/handler.js";

/**
 * tool/settings/read: each managed entry of tools.json with its state and
 * settings (secrets masked), and the models the classifier gate may use:
 * those whose provider has credentials.
 */
export const handler: Handler<"tool/settings/read"> = async (_params, ctx) => {
  let tools;
  try {
    tools = readToolSettings(ctx.context.agentDir);
  } catch (error) {
    throw toolSettingsError(error);
  }
  const models = await (await ctx.services.registry()).list();
  const classifiers = models.filter((model) => model.available).map(({ provider, id, name }) => ({ provider, id, name }));
  return { tools, classifiers };
};
