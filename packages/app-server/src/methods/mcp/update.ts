import { updateMcpServer } from "@knightcode/agent/mcp/write";
import { mcpError } from "../../mcp/errors.js";
import { where } from "../../mcp/where.js";
import type { Handler } from "../../rpc/handler.js";

/** mcp/update: enabled or exposure, saved where the server's entry in force is. */
export const handler: Handler<"mcp/update"> = async (params, ctx) => {
  const trust = await ctx.services.trust();
  try {
    await updateMcpServer({ agentDir: ctx.context.agentDir, trust, ...where(params.cwd) }, params.name, {
      ...(params.enabled === undefined ? {} : { enabled: params.enabled }),
      ...(params.exposure === undefined ? {} : { exposure: params.exposure }),
    });
  } catch (error) {
    throw mcpError(error);
  }
  return {};
};
