import type { ServerNotificationMethod } from "@knightcode/app-server-protocol";
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

/** Deltas per run, so that a run's texts are joined into one string every so often. */
const RUN_MAX = 256;

/** One notification, held as it was sent. */
interface Single {
  readonly kind: "single";
  readonly event: SequencedEvent;
  readonly lastSeq: number;
  readonly count: 1;
  readonly weight: number;
}

/**
 * Consecutive deltas of one item, held as their texts and where each ends
 * rather than as one object per delta: a reply of thousands of deltas
 * would otherwise keep thousands of small objects alive, which the
 * collector copies out of the young generation one by one (it halved the
 * relay rate of a sequenced connection).
 */
interface DeltaRun {
  readonly kind: "run";
  readonly method: ServerNotificationMethod;
  readonly threadId: string;
  readonly turnId: string;
  readonly itemId: string;
  /** The seq of the run's first delta, dropped or not. */
  readonly firstSeq: number;
  lastSeq: number;
  /** Deltas in the run, the dropped ones included. */
  count: number;
  /** How many of its first deltas were dropped to keep within the bounds. */
  skip: number;
  weight: number;
  /** The texts while the run grows; joined into `text` once it is closed. */
  parts: string[] | undefined;
  text: string;
  /** Where each delta's text ends in `text`. */
  ends: number[];
}

type Entry = Single | DeltaRun;

interface DeltaParams {
  threadId: string;
  turnId: string;
  itemId: string;
  delta: string;
}

/**
 * The notifications a loaded thread sent to its subscribers lately, with
 * their seq, oldest first: what a client that reconnects missed. Bounded by
 * count and by an estimate of bytes; past either the oldest go, and with
 * them the promise that everything after an older seq is here.
 */
export class EventRing {
  private held: Entry[] = [];
  /** Where the oldest entry still held is in `held`: dropping from the front moves it, not the array. */
  private head = 0;
  private count = 0;
  private bytes = 0;

  constructor(
    /** Every notification after this seq is held, however many more come. */
    private floor: number,
    private readonly maxEvents: number,
    private readonly maxBytes = REPLAY_BYTES,
  ) {}

  record(event: SequencedEvent): void {
    const delta = asDelta(event);
    const weight = delta ? delta.delta.length + DELTA_OVERHEAD : estimateBytes(event);
    const last = this.held.length > this.head ? this.held[this.held.length - 1] : undefined;
    if (delta && last?.kind === "run" && continues(last, event, delta)) {
      last.parts!.push(delta.delta);
      last.lastSeq = event.seq;
      last.count++;
      last.weight += weight;
    } else {
      if (last?.kind === "run") close(last);
      this.held.push(delta ? openRun(event, delta, weight) : { kind: "single", event, lastSeq: event.seq, count: 1, weight });
    }
    this.count++;
    this.bytes += weight;
    while (this.head < this.held.length && (this.count > this.maxEvents || this.bytes > this.maxBytes)) this.dropOldest();
  }

  /**
   * Every notification after `afterSeq`, oldest first, when all of them are
   * held (none when `afterSeq` is the last one sent); undefined when some
   * are gone or `afterSeq` was never sent.
   */
  after(afterSeq: number, last: number): SequencedEvent[] | undefined {
    if (afterSeq < this.floor || afterSeq > last) return undefined;
    let from = this.held.length;
    while (from > this.head && this.held[from - 1]!.lastSeq > afterSeq) from--;
    // The entry that holds afterSeq itself may hold later deltas too.
    if (from > this.head) from--;
    const events: SequencedEvent[] = [];
    for (const entry of this.held.slice(from)) {
      if (entry.kind === "single") {
        if (entry.event.seq > afterSeq) events.push(entry.event);
      } else expand(entry, afterSeq, events);
    }
    return events;
  }

  /** The oldest notification goes: a run's first delta still held, or a whole entry. */
  private dropOldest(): void {
    const oldest = this.held[this.head]!;
    if (oldest.kind === "run" && oldest.count - oldest.skip > 1) {
      close(oldest);
      const at = oldest.skip++;
      const weight = oldest.ends[at]! - (at === 0 ? 0 : oldest.ends[at - 1]!) + DELTA_OVERHEAD;
      oldest.weight -= weight;
      this.floor = oldest.firstSeq + at;
      this.count--;
      this.bytes -= weight;
      return;
    }
    this.head++;
    this.floor = oldest.lastSeq;
    this.count -= oldest.kind === "run" ? oldest.count - oldest.skip : 1;
    this.bytes -= oldest.weight;
    // Compacted once half is dropped: each entry is copied a bounded number of times.
    if (this.head * 2 >= this.held.length) {
      this.held = this.held.slice(this.head);
      this.head = 0;
    }
  }
}

/** A delta whose params are exactly the four fields a delta has, so its run can give them back as they were. */
function asDelta(event: SequencedEvent): DeltaParams | undefined {
  if (!DELTAS.has(event.method)) return undefined;
  const p = event.params as Partial<DeltaParams>;
  const exact = typeof p.delta === "string" && typeof p.threadId === "string" && typeof p.turnId === "string" && typeof p.itemId === "string";
  return exact && Object.keys(p).length === 4 ? (p as DeltaParams) : undefined;
}

function continues(run: DeltaRun, event: SequencedEvent, delta: DeltaParams): boolean {
  return (
    run.parts !== undefined &&
    run.count < RUN_MAX &&
    event.seq === run.lastSeq + 1 &&
    event.method === run.method &&
    delta.itemId === run.itemId &&
    delta.turnId === run.turnId &&
    delta.threadId === run.threadId
  );
}

function openRun(event: SequencedEvent, delta: DeltaParams, weight: number): DeltaRun {
  const { threadId, turnId, itemId } = delta;
  return {
    kind: "run",
    method: event.method,
    threadId,
    turnId,
    itemId,
    firstSeq: event.seq,
    lastSeq: event.seq,
    count: 1,
    skip: 0,
    weight,
    parts: [delta.delta],
    text: "",
    ends: [],
  };
}

function close(run: DeltaRun): void {
  if (!run.parts) return;
  let end = 0;
  run.ends = run.parts.map((part) => (end += part.length));
  run.text = run.parts.join("");
  run.parts = undefined;
}

/** The run's deltas after `afterSeq`, each as it was sent. */
function expand(run: DeltaRun, afterSeq: number, into: SequencedEvent[]): void {
  close(run);
  const { method, threadId, turnId, itemId } = run;
  for (let i = Math.max(run.skip, afterSeq - run.firstSeq + 1); i < run.count; i++) {
    const delta = run.text.slice(i === 0 ? 0 : run.ends[i - 1], run.ends[i]);
    into.push({ seq: run.firstSeq + i, method, params: { threadId, turnId, itemId, delta } });
  }
}

/** About what an event costs to hold: its JSON. */
function estimateBytes(event: SequencedEvent): number {
  try {
    return event.method.length + JSON.stringify(event.params).length;
  } catch {
    return DELTA_OVERHEAD;
  }
}
