import { computed } from "@preact/signals";
import { conn } from "../../connection/connection.js";
import { activeThreadId } from "../../state/app-state.js";
import { openThreadSignal } from "../../state/open-threads.js";
import { createSettingsModel } from "./model.js";

/** The open thread's folder, when a thread is open and loaded. */
export const threadCwd = computed(() => {
  const id = activeThreadId.value;
  return id ? openThreadSignal(id).value?.thread.cwd : undefined;
});

/** The page's settings model, over the page's connection, following the open thread's folder. */
export const settings = createSettingsModel({ conn, threadCwd });

export const chosenProject = settings.chosenProject;
export const settingsCwd = settings.cwd;
