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
    if (this.fatalError) {
      this.unsaved?.keep(entry, durable);
      return undefined;
    }
    const leafBefore = this.transcript.leafId ?? null;
    try {
      return this.transcript.append(entry as never, { durable });
    } catch (error) {
      const fault = threadFault(error);
      this.fatalError = fault;
      if (fault.resumable) {
        this.unsaved = new UnsavedEntries(leafBefore);
        this.unsaved.keep(entry, durable);
      }
      for (const listener of [...this.listeners]) listener(fault);
      return undefined;
    }
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
