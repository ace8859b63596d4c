import { readSettings } from "@knightcode/agent";
import { requireDirectory } from "../threads/directory.js";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { mappingConfigErrors } from "./errors.js";

/**
 * config/read: global settings and, with cwd, a trusted project's merged
 * over them. One read of each file gives the settings, origins, version and
 * warnings together, so a version always describes the content beside it.
 */
export const readConfig: ThreadHandler<"config/read"> = (params, _ctx, threads) => {
  const cwd = params.cwd === undefined ? undefined : requireDirectory(params.cwd);
  return mappingConfigErrors(() => {
    const snapshot = readSettings({ agentDir: threads.context.agentDir, ...(cwd === undefined ? {} : { cwd }), trust: threads.environment.trust });
    const { settings, defaults, origins, versions, paths, errors } = snapshot;
    return { settings, defaults, origins, versions, paths, errors };
  });
};
