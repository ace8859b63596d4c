import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionSpec } from "../extensions/host-deps.js";
import type { TrustLookup } from "../settings/scope.js";
import { listMcpServers } from "./files.js";

export const MCP_EXTENSION_NAME = "mcp";

export interface McpExtensionOptions {
  agentDir: string;
  trust: TrustLookup;
  /** The server's own environment, where `auth.bearerTokenEnv` is read. */
  env: NodeJS.ProcessEnv;
  /** How long one server may take to start, answer the handshake and list its tools. */
  connectTimeoutMs?: number;
}

/**
 * MCP in every thread, as a built-in extension. Its factory only reads the
 * configuration (command/list and tool/list run factories, and must start
 * nothing): the thread's `session_start` connects the enabled servers, the
 * first turn waits for connections still under way, and the extension's
 * release closes them all when the thread unloads, reloads or the server
 * stops.
 */
export function mcpExtension(options: McpExtensionOptions): ExtensionSpec {
  return {
    path: MCP_EXTENSION_NAME,
    builtin: true,
    async factory(api, services) {
      const listing = listMcpServers({ agentDir: options.agentDir, cwd: api.cwd, trust: options.trust });
      if (listing.servers.length === 0 && listing.warnings.length === 0) return;
      // The connection code (and through it the SDK) loads only for a thread that has servers.
      const { ThreadServers } = await import("./thread-servers.js");
      const servers = new ThreadServers({
        api,
        services,
        servers: listing.servers,
        serverEnv: options.env,
        neutralCwd: () => neutralFolder(options.agentDir),
        ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      });
      services.onDispose(() => servers.close());
      api.on("session_start", () => {
        for (const warning of listing.warnings)
          services.warn({ message: warning.message, source: "extension", ...(warning.path ? { path: warning.path } : {}) });
        servers.start();
      });
      api.on("before_agent_start", (_event, ctx) => servers.ready(ctx.signal));
      if (listing.servers.length === 0) return;
      api.registerCommand("mcp", {
        description: "Show this thread's MCP servers and how they are doing",
        handler: (_args, ctx) => {
          for (const line of servers.summary()) ctx.ui.notify(`MCP ${line}`, line.includes(": failed") ? "warning" : "info");
        },
      });
    },
  };
}

/**
 * `<agentDir>/mcp-cwd`, empty and the user's alone: a stdio server with no
 * `cwd` of its own starts there rather than in the thread's project.
 */
export function neutralFolder(agentDir: string): string {
  const folder = join(agentDir, "mcp-cwd");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return folder;
}
