import { readToolSettings, ToolSettingsError, writeToolSetting } from "@knightcode/agent";
import { rpcError } from "../rpc/errors.js";
import type { ThreadHandler } from "../threads/thread-handler.js";

/** Maps a tool settings failure: the caller's mistakes are invalidParams; a file we cannot understand or write is internal. */
function toolSettingsError(error: unknown): Error {
  if (!(error instanceof ToolSettingsError)) return error as Error;
  switch (error.code) {
    case "unknownTool":
    case "invalidKey":
    case "invalidValue":
      return rpcError("invalidParams", error.message);
    case "corrupt":
    case "io":
      return rpcError("internal", error.message);
  }
}

/**
 * tool/settings/read: each managed entry of tools.json with its state and
 * settings (secrets masked), and the models the classifier gate may use:
 * those whose provider has credentials.
 */
export const showToolSettings: ThreadHandler<"tool/settings/read"> = async (_params, _ctx, threads) => {
  let tools;
  try {
    tools = readToolSettings(threads.environment.agentDir);
  } catch (error) {
    throw toolSettingsError(error);
  }
  const models = await threads.registry.list();
  const classifiers = models.filter((model) => model.available).map(({ provider, id, name }) => ({ provider, id, name }));
  return { tools, classifiers };
};

/** tool/settings/write: one setting of one managed entry; threads loaded afterwards use it. */
export const setToolSetting: ThreadHandler<"tool/settings/write"> = async (params, ctx, threads) => {
  try {
    await writeToolSetting({ agentDir: threads.environment.agentDir, name: params.name, key: params.key, value: params.value, signal: ctx.signal });
  } catch (error) {
    throw toolSettingsError(error);
  }
  return {};
};
