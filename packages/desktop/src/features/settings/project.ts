import { computed, signal } from "@preact/signals";
import { activeThreadId } from "../../state/app-state.js";
import { openThreadSignal } from "../../state/open-threads.js";

/**
 * Which project the settings screens read and write: `undefined` follows the
 * open thread's folder, `null` is no project (global only), a string is a
 * folder the user typed.
 */
export const chosenProject = signal<string | null | undefined>(undefined);

/** The open thread's folder, when a thread is open and loaded. */
export const threadCwd = computed(() => {
  const id = activeThreadId.value;
  return id ? openThreadSignal(id).value?.thread.cwd : undefined;
});

/** The cwd every settings request passes; undefined means global only. */
export const settingsCwd = computed<string | undefined>(() => {
  const chosen = chosenProject.value;
  if (chosen === null) return undefined;
  return chosen ?? threadCwd.value;
});

/** `{cwd}` when a project is chosen, else `{}`: the params most settings requests take. */
export function cwdParams(): { cwd?: string } {
  const cwd = settingsCwd.value;
  return cwd === undefined ? {} : { cwd };
}
