import { addMcpServer } from "@knightcode/agent/mcp/write";
import { mcpError } from "../../mcp/errors.js";
import { where } from "../../mcp/where.js";
import type { Handler } from "../../rpc/handler.js";

/** mcp/add: a checked entry, added or replacing the one of its name. */
export const handler: Handler<"mcp/add"> = async (params, ctx) => {
  const trust = await ctx.services.trust();
  try {
    const { replaced } = await addMcpServer({ agentDir: ctx.context.agentDir, trust, scope: params.scope, ...where(params.cwd) }, params.name, params.config);
    return { replaced };
  } catch (error) {
    throw mcpError(error);
  }
};
