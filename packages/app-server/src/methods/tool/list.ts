import { probeThreadTools } from "@knightcode/agent/thread/load-runtime";
import { requireDirectory } from "../../threads/directory.js";
import type { Handler } from "../../rpc/handler.js";

/**
 * tool/list: the tools a new thread in `cwd` (a project-less one without
 * it) would have, and those it would offer the model, from a session built
 * in memory: no extension starts, no MCP server starts, nothing is written.
 */
export const handler: Handler<"tool/list"> = async (params, ctx) => {
  const cwd = params.cwd === undefined ? undefined : requireDirectory(params.cwd);
  return probeThreadTools(await ctx.services.environment(), cwd);
};
