import { join } from "node:path";
import { ExtensionFactoryCache } from "@knightcode/agent/extensions/factory-cache";
import { mcpExtension } from "@knightcode/agent/mcp/extension";
import type { ModelRegistry } from "@knightcode/agent/models/registry";
import type { ThreadEnvironment } from "@knightcode/agent/thread/runtime-options";
import type { TrustStore } from "@knightcode/agent/trust/store";
import type { ServerContext } from "../host/context.js";

/**
 * What every thread of a server shares: the registry and trust store the
 * services made, the built-in MCP extension and one extension code cache.
 */
export function threadEnvironment(context: ServerContext, shared: { registry: ModelRegistry; trust: TrustStore }): ThreadEnvironment {
  const { registry, trust } = shared;
  return {
    agentDir: context.agentDir,
    registry,
    trust,
    builtinExtensions: [mcpExtension({ agentDir: context.agentDir, trust, env: context.env })],
    // One code cache per process: threads lease what they load; at most 256 unleased entries stay.
    extensionFactories: new ExtensionFactoryCache({
      onChange: (counts) => (context.counters.inactiveFactories = counts.inactive),
      // Per user and private: what is found there runs in the server.
      diskCache: join(context.agentDir, "cache", "jiti"),
      onWarning: (message) => context.log.warn(message),
    }),
    extensionPaths: context.extensionPaths,
    env: context.env,
    secrets: context.secrets,
    log: (line) => context.log.info(line),
  };
}
