import type { SequencedEvent } from "../rpc/thread-holds.js";
import { DELTAS } from "../rpc/outbox.js";

/**
 * At most this many bytes (as estimated) of a thread's notifications are
 * held for replay. With the default count bound (5,000 notifications, the
 * server context's `replayEvents`) a reply of a few thousand deltas fits
 * whole, with its item and turn events; a runaway stream only pushes out
 * its own oldest notifications.
 */
export const REPLAY_BYTES = 4 * 1024 * 1024;

/** What a delta weighs beside its text: its method, ids and framing. */
const DELTA_OVERHEAD = 160;

/**
 * The notifications a loaded thread sent to its subscribers lately, with
 * their seq, oldest first: what a client that reconnects missed. Bounded by
 * count and by an estimate of bytes; past either the oldest go, and with
 * them the promise that everything after an older seq is here.
 */
export class EventRing {
  private held: { event: SequencedEvent; weight: number }[] = [];
  /** Where the oldest event still held is in `held`: dropping from the front moves it, not the array. */
  private head = 0;
  private bytes = 0;

  constructor(
    /** Every notification after this seq is held, however many more come. */
    private floor: number,
    private readonly maxEvents: number,
    private readonly maxBytes = REPLAY_BYTES,
  ) {}

  record(event: SequencedEvent): void {
    const weight = estimateBytes(event);
    this.held.push({ event, weight });
    this.bytes += weight;
    while (this.held.length - this.head > this.maxEvents || (this.bytes > this.maxBytes && this.head < this.held.length)) this.dropOldest();
  }

  /**
   * Every notification after `afterSeq`, oldest first, when all of them are
   * held (none when `afterSeq` is the last one sent); undefined when some
   * are gone or `afterSeq` was never sent.
   */
  after(afterSeq: number, last: number): SequencedEvent[] | undefined {
    if (afterSeq < this.floor || afterSeq > last) return undefined;
    let from = this.held.length;
    while (from > this.head && this.held[from - 1]!.event.seq > afterSeq) from--;
    return this.held.slice(from).map(({ event }) => event);
  }

  private dropOldest(): void {
    const oldest = this.held[this.head++]!;
    this.floor = oldest.event.seq;
    this.bytes -= oldest.weight;
    // Compacted once half is dropped: each event is copied a bounded number of times.
    if (this.head * 2 >= this.held.length) {
      this.held = this.held.slice(this.head);
      this.head = 0;
    }
  }
}

/** About what an event costs to hold: a delta's text plus a fixed cost, anything else as its JSON. */
function estimateBytes(event: SequencedEvent): number {
  const delta = (event.params as { delta?: unknown }).delta;
  if (DELTAS.has(event.method) && typeof delta === "string") return delta.length + DELTA_OVERHEAD;
  try {
    return event.method.length + JSON.stringify(event.params).length;
  } catch {
    return DELTA_OVERHEAD;
  }
}
