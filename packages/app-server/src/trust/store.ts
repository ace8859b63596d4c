import { TrustStore } from "@knightcode/agent/trust/store";
import type { ServerContext } from "../host/context.js";

/** The server-owned trust decisions: one store per server, read by settings, MCP, environments and threads alike. */
export function createTrustStore(context: ServerContext): TrustStore {
  return new TrustStore(context.agentDir);
}
