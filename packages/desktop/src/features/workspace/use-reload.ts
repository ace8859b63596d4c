import { useEffect } from "preact/hooks";
import { openThreadSignal } from "../../state/open-threads.js";
import { workspace } from "./store.js";

/**
 * Runs a workspace view's `load` now, again whenever the thread is opened
 * anew (its generation moves: a reconnect, a relocation), and whenever a
 * turn of the thread changes its files.
 */
export function useWorkspaceReload(threadId: string, load: () => Promise<void>): void {
  const generation = openThreadSignal(threadId).value?.generation;
  useEffect(() => {
    void load();
  }, [load, generation]);
  useEffect(() => workspace.onFilesChanged(threadId, () => void load()), [threadId, load]);
}
