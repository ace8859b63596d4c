import { readEnvironments } from "@knightcode/agent/environments/environments-file";
import { requireDirectory } from "../../threads/directory.js";
import type { Handler } from "../../rpc/handler.js";
import { mappingConfigErrors } from "../../config/errors.js";

/**
 * environment/list: the project's environments.json, read whatever the
 * project's trust (listing runs nothing), with the decision beside it.
 */
export const handler: Handler<"environment/list"> = async (params, ctx) => {
  const trust = await ctx.services.trust();
  const cwd = requireDirectory(params.cwd);
  return mappingConfigErrors(() => {
    const trusted = trust.decisionFor(cwd);
    return { environments: readEnvironments(cwd).environments, trusted };
  });
};
