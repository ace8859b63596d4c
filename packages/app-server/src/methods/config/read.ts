import { readSettings } from "@knightcode/agent/settings/read";
import { requireDirectory } from "../../threads/directory.js";
import type { Handler } from "../../rpc/handler.js";
import { mappingConfigErrors } from "../../config/errors.js";

/**
 * config/read: global settings and, with cwd, a trusted project's merged
 * over them. One read of each file gives the settings, origins, version and
 * warnings together, so a version always describes the content beside it.
 */
export const handler: Handler<"config/read"> = async (params, ctx) => {
  const trust = await ctx.services.trust();
  const cwd = params.cwd === undefined ? undefined : requireDirectory(params.cwd);
  return mappingConfigErrors(() => {
    const snapshot = readSettings({ agentDir: ctx.context.agentDir, ...(cwd === undefined ? {} : { cwd }), trust });
    const { settings, defaults, origins, versions, paths, errors } = snapshot;
    return { settings, defaults, origins, versions, paths, errors };
  });
};
