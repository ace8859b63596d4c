import { saveEnvironments } from "@knightcode/agent";
import { requireDirectory } from "../threads/directory.js";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { mappingConfigErrors } from "./errors.js";

/** environment/save: replaces a trusted project's whole list, under the file's lock. */
export const saveProjectEnvironments: ThreadHandler<"environment/save"> = (params, ctx, threads) => {
  const cwd = requireDirectory(params.cwd);
  return mappingConfigErrors(async () => {
    await saveEnvironments({ cwd, environments: params.environments, trust: threads.environment.trust, signal: ctx.signal });
    return {};
  });
};
