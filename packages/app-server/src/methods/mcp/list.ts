import { listMcpServers } from "@knightcode/agent/mcp/files";
import { requireDirectory } from "../../threads/directory.js";
import type { Handler } from "../../rpc/handler.js";

/** mcp/list: the servers a thread in cwd would connect, read from the files; nothing starts. */
export const handler: Handler<"mcp/list"> = async (params, ctx) => {
  const trust = await ctx.services.trust();
  const cwd = params.cwd === undefined ? undefined : requireDirectory(params.cwd);
  const agentDir = ctx.context.agentDir;
  const listing = listMcpServers({ agentDir, trust, ...(cwd === undefined ? {} : { cwd }) });
  return {
    servers: listing.servers.map(({ entry: _entry, ...server }) => server),
    errors: listing.warnings,
    paths: listing.paths,
  };
};
