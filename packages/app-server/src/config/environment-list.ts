import { readEnvironments } from "@knightcode/agent";
import { requireDirectory } from "../threads/directory.js";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { mappingConfigErrors } from "./errors.js";

/**
 * environment/list: the project's environments.json, read whatever the
 * project's trust (listing runs nothing), with the decision beside it.
 */
export const listEnvironments: ThreadHandler<"environment/list"> = (params, _ctx, threads) => {
  const cwd = requireDirectory(params.cwd);
  return mappingConfigErrors(() => {
    const trusted = threads.environment.trust.decisionFor(cwd);
    return { environments: readEnvironments(cwd).environments, trusted };
  });
};
