import type { ThreadHandlers } from "../threads/thread-handler.js";
import { listCommands } from "./list.js";

/** The command/* methods; the built-in commands themselves run through turn/start (builtins.ts). */
export const commandHandlers = {
  "command/list": listCommands,
} satisfies ThreadHandlers;
