import { McpConfigError } from "@knightcode/agent/mcp/write";
import { rpcError } from "../rpc/errors.js";

/**
 * Maps a failure of the MCP configuration: what the caller asked wrong is
 * invalidParams (with `data.reason` for an untrusted project or a missing
 * cwd), a file that cannot be read or written is internal.
 */
export function mcpError(error: unknown): Error {
  if (!(error instanceof McpConfigError)) return error as Error;
  switch (error.code) {
    case "invalid":
    case "unknownServer":
      return rpcError("invalidParams", error.message);
    case "untrusted":
    case "missingCwd":
      return rpcError("invalidParams", error.message, { reason: error.data.reason ?? error.code, ...(error.data.path ? { path: error.data.path } : {}) });
    case "corrupt":
    case "io":
      return rpcError("internal", error.message, error.data.path ? { path: error.data.path } : undefined);
  }
}
