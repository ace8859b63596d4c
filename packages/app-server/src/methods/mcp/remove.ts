import { removeMcpServer } from "@knightcode/agent/mcp/write";
import { mcpError } from "../../mcp/errors.js";
import { where } from "../../mcp/where.js";
import type { Handler } from "../../rpc/handler.js";

/** mcp/remove: one entry out of one file. */
export const handler: Handler<"mcp/remove"> = async (params, ctx) => {
  const trust = await ctx.services.trust();
  try {
    const { removed } = await removeMcpServer({ agentDir: ctx.context.agentDir, trust, scope: params.scope, ...where(params.cwd) }, params.name);
    return { removed };
  } catch (error) {
    throw mcpError(error);
  }
};
