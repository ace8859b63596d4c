import { saveEnvironments } from "@knightcode/agent/environments/environments-file";
import { requireDirectory } from "../../threads/directory.js";
import type { Handler } from "../../rpc/handler.js";
import { mappingConfigErrors } from "../../config/errors.js";

/** environment/save: replaces a trusted project's whole list, under the file's lock. */
export const handler: Handler<"environment/save"> = async (params, ctx) => {
  const trust = await ctx.services.trust();
  const cwd = requireDirectory(params.cwd);
  return mappingConfigErrors(async () => {
    await saveEnvironments({ cwd, environments: params.environments, trust, signal: ctx.signal });
    return {};
  });
};
