import { addMcpServer, removeMcpServer, updateMcpServer } from "@knightcode/agent";
import { requireDirectory } from "../threads/directory.js";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { mcpError } from "./errors.js";

function where(cwd: string | undefined): { cwd?: string } {
  return cwd === undefined ? {} : { cwd: requireDirectory(cwd) };
}

/** mcp/update: enabled or exposure, saved where the server's entry in force is. */
export const updateMcp: ThreadHandler<"mcp/update"> = async (params, _ctx, threads) => {
  const { agentDir, trust } = threads.environment;
  try {
    await updateMcpServer({ agentDir, trust, ...where(params.cwd) }, params.name, {
      ...(params.enabled === undefined ? {} : { enabled: params.enabled }),
      ...(params.exposure === undefined ? {} : { exposure: params.exposure }),
    });
  } catch (error) {
    throw mcpError(error);
  }
  return {};
};

/** mcp/add: a checked entry, added or replacing the one of its name. */
export const addMcp: ThreadHandler<"mcp/add"> = async (params, _ctx, threads) => {
  const { agentDir, trust } = threads.environment;
  try {
    const { replaced } = await addMcpServer({ agentDir, trust, scope: params.scope, ...where(params.cwd) }, params.name, params.config);
    return { replaced };
  } catch (error) {
    throw mcpError(error);
  }
};

/** mcp/remove: one entry out of one file. */
export const removeMcp: ThreadHandler<"mcp/remove"> = async (params, _ctx, threads) => {
  const { agentDir, trust } = threads.environment;
  try {
    const { removed } = await removeMcpServer({ agentDir, trust, scope: params.scope, ...where(params.cwd) }, params.name);
    return { removed };
  } catch (error) {
    throw mcpError(error);
  }
};
