import { threadFault } from "@knightcode/store/session/fault";
import type { Transcript } from "./transcript.js";
import { UnsavedEntries, type PendingEntry, type UnsavedTail } from "./unsaved.js";

/**
 * Everything a thread writes to its transcript goes through here. A failure
 * to write stops the thread for good (its fault is `fatal`, and listeners
 * hear it once); what it would have written from then on is kept in memory
 * when the failure is one to recover from.
 */
export class TranscriptWriter {
  private fatalError: Error | undefined;
  /** After a disk failure: what could not be written, to be written once the cause is gone. */
  private unsaved: UnsavedEntries | undefined;
  private readonly listeners = new Set<(fault: Error) => void>();

  constructor(readonly transcript: Transcript) {}

  get fatal(): Error | undefined {
    return this.fatalError;
  }

  /** Called once, when writing first fails. */
  onFatal(listener: (fault: Error) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Appends; undefined when the transcript can no longer be written. */
  append(entry: PendingEntry, durable = false): { id: string; timestamp: number } | undefined {
    return this.written(entry, durable, () => this.transcript.append(entry as never, { durable }));
  }

  /**
   * Appends, then waits until the entry is on disk, with the sync off the
   * event loop: what a turn's end waits for, while every other thread goes
   * on. A failed write is `append`'s failure; a failed sync stops the thread
   * too, with nothing kept unsaved, since the line is in the file already.
   */
  async appendDurably(entry: PendingEntry): Promise<{ id: string; timestamp: number } | undefined> {
    const written = this.written(entry, true, () => this.transcript.appendThenSync(entry as never));
    if (written === undefined) return undefined;
    try {
      await written.durable;
      return written.entry;
    } catch (error) {
      this.fail(error, written.entry.id);
      return undefined;
    }
  }

  /** What `write` returns; undefined, with the entry kept unsaved where that applies, once the thread can no longer write or when this write fails. */
  private written<T>(entry: PendingEntry, durable: boolean, write: () => T): T | undefined {
    if (this.fatalError) {
      this.unsaved?.keep(entry, durable);
      return undefined;
    }
    const leafBefore = this.transcript.leafId ?? null;
    try {
      return write();
    } catch (error) {
      this.fail(error, leafBefore, entry, durable);
      return undefined;
    }
  }

  /** The first failure stops the thread; a later one (a sync that fails after a write did) changes nothing. */
  private fail(error: unknown, leaf: string | null, entry?: PendingEntry, durable = false): void {
    if (this.fatalError) return;
    const fault = threadFault(error);
    this.fatalError = fault;
    if (fault.resumable) {
      this.unsaved = new UnsavedEntries(leaf);
      if (entry !== undefined) this.unsaved.keep(entry, durable);
    }
    for (const listener of [...this.listeners]) listener(fault);
  }

  /** What the thread could not write since its disk failed; undefined when nothing failed or the failure is not one to recover from. */
  unsavedTail(): UnsavedTail | undefined {
    return this.unsaved?.snapshot();
  }

  /** Forgets the last entry kept unsaved: nothing of it was shown, so recovering must not write it either. */
  dropLastUnsaved(): void {
    this.unsaved?.dropLast();
  }
}
