/** An entry as the session hands it to its transcript. */
export type PendingEntry = { type: string; timestamp?: number; [field: string]: unknown };

/**
 * What a thread could not write after its disk failed (full, read-only, an
 * I/O error), in order, to be written once the cause is gone. It continues
 * the transcript from `afterLeafId`: if the file no longer ends there (a
 * second process wrote meanwhile), it is not written.
 */
export interface UnsavedTail {
  afterLeafId: string | null;
  entries: { entry: PendingEntry; durable: boolean }[];
  /** Entries left out because the tail grew past its memory bound. */
  dropped: number;
}

/** Past this much JSON, further entries are counted, not kept. */
export const UNSAVED_MAX_BYTES = 32 * 1024 * 1024;

/** Collects the entries a thread could not write, each stamped with the time it was made. */
export class UnsavedEntries {
  private readonly tail: UnsavedTail;
  private bytes = 0;

  constructor(afterLeafId: string | null) {
    this.tail = { afterLeafId, entries: [], dropped: 0 };
  }

  keep(entry: PendingEntry, durable: boolean): void {
    const stamped = entry.timestamp === undefined ? { ...entry, timestamp: Date.now() } : entry;
    const size = JSON.stringify(stamped).length;
    if (this.bytes + size > UNSAVED_MAX_BYTES) {
      this.tail.dropped++;
      return;
    }
    this.bytes += size;
    this.tail.entries.push({ entry: stamped, durable });
  }

  /** Forgets the newest entry: one whose writing failed before anything depended on it. */
  dropLast(): void {
    this.tail.entries.pop();
  }

  snapshot(): UnsavedTail {
    return { ...this.tail, entries: [...this.tail.entries] };
  }
}
