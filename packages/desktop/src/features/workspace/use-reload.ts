import { useEffect } from "preact/hooks";
import { conn } from "../../connection/connection.js";
import { openThreadSignal } from "../../state/open-threads.js";

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
  useEffect(
    () =>
      conn().on("turn/diff/updated", (params) => {
        if (params.threadId === threadId) void load();
      }),
    [threadId, load],
  );
}
