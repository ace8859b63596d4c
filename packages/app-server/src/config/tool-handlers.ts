import type { ThreadHandlers } from "../threads/thread-handler.js";
import { listTools } from "./tool-list.js";
import { setToolSetting, showToolSettings } from "./tool-settings.js";

/** The tool/* methods: what a new thread would have, and tools.json's managed entries. */
export const toolHandlers = {
  "tool/list": listTools,
  "tool/settings/read": showToolSettings,
  "tool/settings/write": setToolSetting,
} satisfies ThreadHandlers;
