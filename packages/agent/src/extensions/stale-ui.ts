import { silentUI } from "./silent-ui.js";
import type { ExtensionUI } from "./types.js";

/**
 * `ui` as an extension context hands it out: the thread's own until the
 * thread is replaced, then the silent one (nothing shows, every question
 * goes unanswered), `stale` saying which and logging what it refused.
 */
export function staleAwareUI(ui: ExtensionUI, stale: (method: keyof ExtensionUI) => boolean): ExtensionUI {
  const silent = silentUI();
  const guarded = {} as Record<keyof ExtensionUI, (...args: unknown[]) => unknown>;
  // The silent UI implements every method, so its keys are the whole interface.
  for (const method of Object.keys(silent) as (keyof ExtensionUI)[]) {
    guarded[method] = (...args) => {
      const target = stale(method) ? silent : ui;
      return (target[method] as (...args: unknown[]) => unknown).apply(target, args);
    };
  }
  return guarded as unknown as ExtensionUI;
}
