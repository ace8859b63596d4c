import type { ServerNotificationMethod } from "@knightcode/app-server-protocol";

/** A notification about a thread as its subscribers were sent it, with its seq. */
export interface SequencedEvent {
  readonly seq: number;
  readonly method: ServerNotificationMethod;
  readonly params: object;
}

/**
 * What one connection is sent about threads being replayed to it. From the
 * step that decides a replay until the answer announcing it is out,
 * everything about that thread (notifications and requests) waits here in
 * order; then the replayed events go first and what waited follows, so
 * nothing newer overtakes them and nothing is sent twice.
 */
export class ThreadHolds {
  private readonly held = new Map<string, (() => void)[]>();

  /** The queue of a held thread, where what is sent about it waits; undefined when it is not held (nearly always). */
  queueOf(threadId: string | undefined): (() => void)[] | undefined {
    return threadId === undefined || this.held.size === 0 ? undefined : this.held.get(threadId);
  }

  /** Starts holding `threadId`; false when it is held already (one replay at a time). */
  hold(threadId: string): boolean {
    if (this.held.has(threadId)) return false;
    this.held.set(threadId, []);
    return true;
  }

  /** Ends the hold: `first` runs, then everything that waited, in order. */
  release(threadId: string, first: () => void): void {
    const waiting = this.held.get(threadId);
    if (!waiting) return;
    this.held.delete(threadId);
    first();
    for (const send of waiting) send();
  }
}
