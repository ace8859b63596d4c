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
 * the model SDKs' place). All the slices begun in the same turn of the loop
 * share it: each gets a part (see RelaySlice.length), and once the turn's
 * whole budget is used, the rest wait for a later turn (see RelaySlice.due).
 */
export const RELAY_SLICE_MS = 4;
/** The least one slice runs before it lets the loop turn, however many share the time. */
export const MIN_RELAY_SLICE_MS = 0.2;

/**
 * Turns of the event loop seen so far, counted by one immediate: armed when
 * a slice begins, and again at each turn in which one began, so that the
 * count of slices begun in the last turn is never an old one.
 */
let loopTurns = 0;
/** How many slices began in this turn of the loop, and in the turn before it. */
let relayingNow = 0;
let relayingBefore = 0;
/** When the first slice of this turn of the loop began, by its clock: the turn's budget counts from there. */
let turnBegan = 0;
let turnCounter: NodeJS.Immediate | undefined;

/**
 * Paused slices, by level: first paused, first resumed within a level, and
 * a lower level first. Resuming them all in the next turn of the loop, each
 * for at least one event, made that turn as long as fifty events of fifty
 * replies (an event-loop delay p99 of 22-39 ms with fifty replies
 * streaming, measured). Instead one is resumed per turn of the loop (the
 * pump), and each that pauses while the turn's budget lasts hands the turn
 * on to the next one waiting: the turn ends when its budget does, and no
 * reply is passed over.
 */
const waiting: (() => void)[][] = [];
/**
 * The pauses of a slice that go ahead of the replies streaming on: level
 * n holds the slices pausing for the n-th time, up to this many, and the
 * last level all the others. A reply that has just begun gets to its first
 * delta without waiting behind every reply that streams on: the first
 * delta is what a user watches for.
 */
export const STARTING_PAUSES = 1;
for (let level = 0; level <= STARTING_PAUSES; level++) waiting.push([]);
let pump: NodeJS.Immediate | undefined;

/** Slices paused and not resumed yet, at every level. */
let queued = 0;
const anyWaiting = (): boolean => queued > 0;
function resumeNext(): void {
  const next = waiting.find((level) => level.length > 0)?.shift();
  if (next === undefined) return;
  queued--;
  next();
}

function schedulePump(): void {
  if (pump !== undefined || !anyWaiting()) return;
  pump = setImmediate(() => {
    pump = undefined;
    resumeNext();
    schedulePump();
  });
}

/** Whether the slices of this turn of the loop have used its budget, at `now`. */
function turnSpent(now: number): boolean {
  return relayingNow > 0 && now - turnBegan > RELAY_SLICE_MS;
}

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
  /** Set when it resumes from a pause: it does its part of the turn even when the turn's budget is gone, so it cannot wait for ever. */
  private resumed = false;
  private pauses = 0;

  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** Milliseconds of work in this slice at `now`; a slice whose loop turned begins anew at `now`. */
  spent(now: number): number {
    if (this.turn !== loopTurns) this.restart(now);
    return now - this.start;
  }

  /** A new slice begins at `now` (the loop just turned). */
  restart(now: number): void {
    if (this.turn !== loopTurns) {
      if (relayingNow === 0) turnBegan = now;
      relayingNow++;
      this.resumed = false;
    }
    this.start = now;
    this.turn = loopTurns;
    countNextTurn();
  }

  /**
   * How long this slice may last: RELAY_SLICE_MS shared by the slices
   * begun in these turns of the loop, or by all those waiting for a turn
   * with this one if they are more, and never under MIN_RELAY_SLICE_MS.
   * A whole turn for one slice would make each of fifty replies wait for
   * the forty-nine others' turns between two of its deltas.
   */
  length(): number {
    return Math.max(MIN_RELAY_SLICE_MS, RELAY_SLICE_MS / Math.max(1, relayingNow, relayingBefore, queued + 1));
  }

  /**
   * Whether the work should `pause` before it goes on: its slice is used
   * up, or the slices of this turn of the loop used the turn's budget
   * (unless this one has just resumed, and has not yet had its part).
   */
  due(now = this.clock()): boolean {
    if (this.spent(now) > this.length()) return true;
    return !this.resumed && turnSpent(now);
  }

  /**
   * Waits for its turn, then begins a new slice: handed on by a slice that
   * pauses after it while the turn's budget lasts, or by the pump in a
   * later turn of the loop, after the slices that paused before it (those
   * in their first pauses first). It never goes on by itself: with no one
   * else waiting, the loop turns first, so what was queued meanwhile
   * (input, timers, writes) runs first.
   */
  async pause(): Promise<void> {
    // The next one waiting goes on in this turn while its budget lasts; this one waits behind it.
    if (!turnSpent(this.clock())) resumeNext();
    const queue = waiting[Math.min(this.pauses++, STARTING_PAUSES)]!;
    const turn = new Promise<void>((resolve) => queue.push(resolve));
    queued++;
    schedulePump();
    await turn;
    this.restart(this.clock());
    this.resumed = true;
  }
}
