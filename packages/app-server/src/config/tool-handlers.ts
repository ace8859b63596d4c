import type { ThreadHandlers } from "../threads/thread-handler.js";
import { listTools } from "./tool-list.js";
import { readSettings, writeSettings } from "./tool-settings.js";

/** The tool/* methods: what a new thread would have, and tools.json's managed entries. */
export const toolHandlers = {
  "tool/list": listTools,
  "tool/settings/read": readSettings,
  "tool/settings/write": writeSettings,
} satisfies ThreadHandlers;
