/** Writes a turn of the event loop may take before the end of the job that queued them; the rest wait for the end of the turn. */
export const EARLY_WRITES = 4;
/** How long output must have been quiet for a turn's messages to get early writes: a stream's turns follow each other closer than this. */
export const QUIET_MS = 2;
/** How many messages a turn gathers when output streams: fewer (the notifications a turn's start sends) are no stream. */
export const STREAM_MESSAGES = 8;

export interface GatheredOutput {
  /** The first message of a turn has just been queued: it goes out now, and what follows is held. */
  opened(): void;
  /** A turn begins with a message that waits for the turn's end (see `addLater`): hold it and what follows. */
  held(): void;
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
 * - unless output streams, what follows goes out when the job that queued
 *   it ends (a microtask, before the next job of the turn begins), up to
 *   EARLY_WRITES times in that turn: a reply's first delta never waits for
 *   a disk write queued after it;
 * - otherwise, and past those, the rest of the turn is gathered into one
 *   write at its end.
 *
 * Output streams when the last turn ended less than QUIET_MS ago and either
 * gathered STREAM_MESSAGES or more, or itself followed another that
 * closely: a burst of thousands of messages then costs two writes a turn
 * (early writes there cost a quarter of the relay rate), and a paced stream
 * one or two. A single turn of a few messages shortly before is no stream:
 * a model that answers within milliseconds sends its first delta right
 * after the turn's start was written, and that delta must not wait for the
 * reply's end.
 *
 * A message that ends something (`addTogether`: a turn's end) goes out
 * with everything queued after it in the same turn of the event loop, in
 * one write at the turn's end: a client that reads a turn's end reads in
 * the same read what that end changed (the thread's status, the broadcast
 * to every connection).
 *
 * A message a client waits for (`addSoon`: an item's first delta) goes
 * out when the job that queued it ends even while output streams: a
 * reply's first delta, which comes in the same burst as the rest of a
 * short reply, would otherwise wait behind the reply's end, its durable
 * append and the turn's bookkeeping, for the whole turn of the loop.
 * There is one per item, so a burst of them costs one write per reply.
 *
 * A message no one waits for at once (`addLater`: the next delta of a text
 * already streaming) never causes a write: it goes out with the rest of its
 * turn. Fifty threads streaming, one connection each, get their turns of
 * the loop one after another, a few deltas each; as the first of a turn
 * each delta cost a write of its own, and the writes a fifth of the
 * server's time.
 */
export class Gathering {
  private open = false;
  private early = 0;
  private flushQueued = false;
  /** Messages gathered in the turn under way, and in the last one. */
  private gathered = 0;
  private lastGathered = 0;
  /** Whether the turn under way (or the last one) began less than QUIET_MS after the one before it ended. */
  private closeAfterLast = false;
  /** When the last turn's output went out. */
  private lastClosedAt = Number.NEGATIVE_INFINITY;
  /** Set by `addTogether`: nothing more goes out before the end of the turn under way. */
  private together = false;

  constructor(
    private readonly output: GatheredOutput,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Call after each message is queued. */
  added(): void {
    this.add(false);
  }

  /** Call after a message a client waits for is queued: it goes out when its job ends, even while output streams; only a turn's end (`addTogether`) holds it. */
  addSoon(): void {
    this.add(true);
  }

  private add(soon: boolean): void {
    this.gathered++;
    if (!this.open) {
      this.begin();
      this.output.opened();
      return;
    }
    if (this.flushQueued || this.together || (!soon && this.early >= EARLY_WRITES)) return;
    this.flushQueued = true;
    queueMicrotask(this.endOfJob);
  }

  /** Call before a message that waits for the end of its turn is queued: it starts no write, and holds output if it opens the turn. */
  addLater(): void {
    this.gathered++;
    if (this.open) return;
    this.begin();
    this.output.held();
  }

  /** Call before a message that ends something is queued: from it on, the turn's output goes out in one write at the turn's end. */
  addTogether(): void {
    this.together = true;
    this.addLater();
  }

  private begin(): void {
    this.open = true;
    const lastWasCloseToo = this.closeAfterLast;
    this.closeAfterLast = this.now() - this.lastClosedAt < QUIET_MS;
    this.early = this.closeAfterLast && (lastWasCloseToo || this.lastGathered >= STREAM_MESSAGES) ? EARLY_WRITES : 0;
    setImmediate(this.endOfTurn);
  }

  private readonly endOfJob = (): void => {
    this.flushQueued = false;
    if (!this.open || this.together) return;
    this.early++;
    this.output.flushed();
  };

  private readonly endOfTurn = (): void => {
    this.open = false;
    this.together = false;
    this.lastGathered = this.gathered;
    this.gathered = 0;
    this.output.closed();
    this.lastClosedAt = this.now();
  };
}
