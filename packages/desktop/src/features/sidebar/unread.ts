import { signal, type ReadonlySignal } from "@preact/signals";

/**
 * Threads that finished a turn or changed while another one was open. Kept
 * per thread id in storage, so a reload still shows what you missed.
 */
const PREFIX = "knightcode.unread.";

export interface UnreadMarks {
  ids: ReadonlySignal<ReadonlySet<string>>;
  mark(threadId: string): void;
  clear(threadId: string): void;
}

/** The marks kept in `storage` (the page's localStorage; a test's own). */
export function createUnreadMarks(storage: Pick<Storage, "length" | "key" | "setItem" | "removeItem"> | undefined): UnreadMarks {
  const ids = signal<ReadonlySet<string>>(readAll());

  function readAll(): Set<string> {
    const found = new Set<string>();
    if (!storage) return found;
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      if (key?.startsWith(PREFIX)) found.add(key.slice(PREFIX.length));
    }
    return found;
  }

  return {
    ids,
    mark(threadId) {
      if (ids.value.has(threadId)) return;
      storage?.setItem(PREFIX + threadId, "1");
      ids.value = new Set(ids.value).add(threadId);
    },
    clear(threadId) {
      if (!ids.value.has(threadId)) return;
      storage?.removeItem(PREFIX + threadId);
      const next = new Set(ids.value);
      next.delete(threadId);
      ids.value = next;
    },
  };
}
