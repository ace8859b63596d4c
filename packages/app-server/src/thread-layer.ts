/**
 * The thread layer's handlers: every method that needs the agent, loaded as
 * one module on the first request that needs it. The type requires a
 * handler for each such method, so a missing one does not compile.
 */
import { commandHandlers } from "./commands/handlers.js";
import { configHandlers } from "./config/handlers.js";
import { toolHandlers } from "./config/tool-handlers.js";
import { accountHandlers } from "./config/account-handlers.js";
import type { ThreadLayerMethod } from "./handlers.js";
import { gitHandlers } from "./git/handlers.js";
import { mcpHandlers } from "./mcp/handlers.js";
import { modelHandlers } from "./models/handlers.js";
import type { ThreadHandler } from "./threads/thread-handler.js";
import { threadHandlers } from "./threads/handlers.js";
import { trustHandlers } from "./trust/handlers.js";
import { turnHandlers } from "./turns/handlers.js";
import { uiHandlers } from "./ui/handlers.js";
import { worktreeHandlers } from "./workspace/worktree-handlers.js";
import { diffHandlers } from "./workspace/diff-handlers.js";

export const threadLayerHandlers: { [M in ThreadLayerMethod]: ThreadHandler<M> } = {
  ...threadHandlers,
  ...turnHandlers,
  ...modelHandlers,
  ...trustHandlers,
  ...uiHandlers,
  ...commandHandlers,
  ...configHandlers,
  ...toolHandlers,
  ...accountHandlers,
  ...mcpHandlers,
  ...gitHandlers,
  ...worktreeHandlers,
  ...diffHandlers,
};
