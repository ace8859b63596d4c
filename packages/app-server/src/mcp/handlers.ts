import type { ThreadHandlers } from "../threads/thread-handler.js";
import { listMcp } from "./list.js";
import { addMcp, removeMcp, updateMcp } from "./write.js";

/** mcp/*: the MCP server files; connections belong to each thread's MCP extension. */
export const mcpHandlers = {
  "mcp/list": listMcp,
  "mcp/update": updateMcp,
  "mcp/add": addMcp,
  "mcp/remove": removeMcp,
} satisfies ThreadHandlers;
