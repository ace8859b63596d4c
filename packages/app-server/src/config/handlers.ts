import type { ThreadHandlers } from "../threads/thread-handler.js";
import { listEnvironments } from "./environment-list.js";
import { saveProjectEnvironments } from "./environment-save.js";
import { readConfig } from "./read.js";
import { listResources } from "./resource-list.js";
import { setResource } from "./resource-set.js";
import { writeConfig } from "./write.js";

/** config/*, resource/* and environment/*: the settings files, the resources they switch, a project's environments. */
export const configHandlers = {
  "config/read": readConfig,
  "config/write": writeConfig,
  "resource/list": listResources,
  "resource/set": setResource,
  "environment/list": listEnvironments,
  "environment/save": saveProjectEnvironments,
} satisfies ThreadHandlers;
