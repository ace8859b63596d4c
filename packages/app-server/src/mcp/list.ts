import { listMcpServers } from "@knightcode/agent";
import { requireDirectory } from "../threads/directory.js";
import type { ThreadHandler } from "../threads/thread-handler.js";

/** mcp/list: the servers a thread in cwd would connect, read from the files; nothing starts. */
export const listMcp: ThreadHandler<"mcp/list"> = (params, _ctx, threads) => {
  const cwd = params.cwd === undefined ? undefined : requireDirectory(params.cwd);
  const { agentDir, trust } = threads.environment;
  const listing = listMcpServers({ agentDir, trust, ...(cwd === undefined ? {} : { cwd }) });
  return {
    servers: listing.servers.map(({ entry: _entry, ...server }) => server),
    errors: listing.warnings,
    paths: listing.paths,
  };
};
