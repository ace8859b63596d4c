import { nextTurn } from "@knightcode/system/util/next-turn";

/**
 * How long the work on model streams may run, all of it together, before it
 * lets the event loop turn. A socket read can hold hundreds of events, and
 * what follows each (splitting the bytes into events, parsing them, the
 * turn, the transcript, every subscriber's outbox) runs in microtasks that
 * no I/O can pass: without a break, one fast reply holds every other
 * thread's stream, the clients' requests, the timers and the writes of
 * what was relayed until its whole read is done. Two kinds of work take
 * slices: the relay of each reply's events (stall-guard.ts) and the split
 * of each reply's bytes into events (sse-split.ts, which the build puts in
 * the model SDKs' place). All the slices begun
 * in the same turns of the loop share it (see RelaySlice.length).
 */
export const RELAY_SLICE_MS = 4;
/** The least one slice runs before it lets the loop turn, however many share the time. */
export const MIN_RELAY_SLICE_MS = 0.1;

/**
 * Turns of the event loop seen so far, counted by one immediate: armed when
 * a slice begins, and again at each turn in which one began, so that the
 * count of slices begun in the last turn is never an old one.
 */
let loopTurns = 0;
/** How many slices began in this turn of the loop, and in the turn before it. */
let relayingNow = 0;
let relayingBefore = 0;
let turnCounter: NodeJS.Immediate | undefined;

function countNextTurn(): void {
  if (turnCounter !== undefined) return;
  turnCounter = setImmediate(() => {
    turnCounter = undefined;
    loopTurns++;
    relayingBefore = relayingNow;
    relayingNow = 0;
    if (relayingBefore > 0) countNextTurn();
  });
}

/**
 * How long one stream's work has run since the event loop last turned. The
 * time spent waiting for the model is not work: the first event, which
 * comes after the model's whole wait, and the first after any pause go on
 * at once, not after a turn of the loop. A turn is seen by an immediate:
 * it runs only once the microtasks that follow a socket read have all run.
 * One immediate serves every stream, whatever their number.
 */
export class RelaySlice {
  private start = 0;
  /** The turn count the slice began in; -1 before the first event. */
  private turn = -1;

  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** Milliseconds of work in this slice at `now`; a slice whose loop turned begins anew at `now`. */
  spent(now: number): number {
    if (this.turn !== loopTurns) this.restart(now);
    return now - this.start;
  }

  /** A new slice begins at `now` (the loop just turned). */
  restart(now: number): void {
    if (this.turn !== loopTurns) relayingNow++;
    this.start = now;
    this.turn = loopTurns;
    countNextTurn();
  }

  /**
   * How long this slice may last: RELAY_SLICE_MS shared by the slices
   * begun in these turns of the loop, and never under MIN_RELAY_SLICE_MS.
   * Each stream's slice alone would let fifty streaming at once hold the
   * loop fifty times as long, and a client's request, a timer, or the next
   * socket read wait behind them all.
   */
  length(): number {
    return Math.max(MIN_RELAY_SLICE_MS, RELAY_SLICE_MS / Math.max(1, relayingNow, relayingBefore));
  }

  /** Whether the slice is used up: the work should `pause` before it goes on. */
  due(now = this.clock()): boolean {
    return this.spent(now) > this.length();
  }

  /** Lets the event loop turn, then begins a new slice. */
  async pause(): Promise<void> {
    await nextTurn();
    this.restart(this.clock());
  }
}
