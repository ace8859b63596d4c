import { ModelRegistry } from "@knightcode/agent/models/registry";
import type { ServerContext } from "../host/context.js";

/** The one model registry of a server: model/list, accounts and every thread share its auth.json and its providers. */
export function createModelRegistry(context: ServerContext): ModelRegistry {
  return new ModelRegistry(context.agentDir, context.env, { log: (message) => context.log.warn(message) });
}
