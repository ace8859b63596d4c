/** Writes a turn of the event loop may take before the end of the job that queued them; the rest wait for the end of the turn. */
export const EARLY_WRITES = 4;
/** How long output must have been quiet for a turn's messages to get early writes: a stream's turns follow each other closer than this. */
export const QUIET_MS = 2;

export interface GatheredOutput {
  /** The first message of a turn has just been queued: it goes out now, and what follows is held. */
  opened(): void;
  /** What is held goes out now; more may follow in the same turn. */
  flushed(): void;
  /** The turn of the event loop is over: what is held goes out, and nothing is held any longer. */
  closed(): void;
}

/**
 * When a transport's messages go out. One write per message costs a system
 * call each, and fifty threads streaming at once would spend a third of the
 * server's time in them; one write per turn of the event loop holds a
 * message behind whatever else the turn does after queueing it, such as the
 * durable append that ends a reply, which waits for the disk. So:
 *
 * - the first message of a turn of the event loop goes out at once;
 * - after a quiet moment (nothing written for QUIET_MS), what follows goes
 *   out when the job that queued it ends (a microtask, before the next job
 *   of the turn begins), up to EARLY_WRITES times in that turn: a reply's
 *   first delta never waits for a disk write queued after it;
 * - otherwise, and past those, the rest of the turn is gathered into one
 *   write at its end. A stream's turns follow each other without a quiet
 *   moment, so a burst of thousands of messages costs two writes a turn
 *   (early writes there cost a quarter of the relay rate).
 */
export class Gathering {
  private open = false;
  private early = 0;
  private flushQueued = false;
  /** When the last turn's output went out. */
  private lastClosedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly output: GatheredOutput,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Call after each message is queued. */
  added(): void {
    if (!this.open) {
      this.open = true;
      this.early = this.now() - this.lastClosedAt >= QUIET_MS ? 0 : EARLY_WRITES;
      this.output.opened();
      setImmediate(this.endOfTurn);
      return;
    }
    if (this.flushQueued || this.early >= EARLY_WRITES) return;
    this.flushQueued = true;
    queueMicrotask(this.endOfJob);
  }

  private readonly endOfJob = (): void => {
    this.flushQueued = false;
    if (!this.open) return;
    this.early++;
    this.output.flushed();
  };

  private readonly endOfTurn = (): void => {
    this.open = false;
    this.output.closed();
    this.lastClosedAt = this.now();
  };
}
