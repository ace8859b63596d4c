import { writeToolSetting } from "@knightcode/agent/tools/tool-settings";
import { toolSettingsError } from "../../../config/tool-settings.js";
import type { Handler } from "../../../rpc/handler.js";

/** tool/settings/write: one setting of one managed entry; threads loaded afterwards use it. */
export const handler: Handler<"tool/settings/write"> = async (params, ctx) => {
  try {
    await writeToolSetting({ agentDir: ctx.context.agentDir, name: params.name, key: params.key, value: params.value, signal: ctx.signal });
  } catch (error) {
    throw toolSettingsError(error);
  }
  return {};
};
