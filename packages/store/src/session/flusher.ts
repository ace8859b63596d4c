import { closeSync, fdatasync } from "node:fs";

/** How a flush reaches the disk: `fdatasync` on libuv's pool unless a test holds or fails it. */
export type SyncFile = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

/**
 * The flushes of one owned descriptor that run off the event loop, so a
 * slow disk holds only the turn that waits for its own end, never every
 * thread's stream. A flush covers every byte written before it was asked
 * for; flushes run one at a time, and one asked for while another has not
 * begun shares it. The descriptor is closed only once no flush uses it: a
 * number closed under a queued flush could name another file by the time
 * the pool reaches it.
 */
export class Flusher {
  /** Settles, never rejecting, once the newest flush has: what the next flush begins after. */
  private tail: Promise<void> = Promise.resolve();
  /** A flush asked for that has not begun: a later ask shares it, since it will cover that ask's bytes too. */
  private waiting: Promise<void> | undefined;
  private unsettled = 0;
  private closeWhenSettled = false;

  constructor(
    private readonly fd: number,
    private readonly syncFile: SyncFile = fdatasync,
  ) {}

  /** Resolves once every byte written before this call is on disk; rejects with the system's error. */
  flush(): Promise<void> {
    if (this.waiting !== undefined) return this.waiting;
    const flush = this.tail.then(() => {
      this.waiting = undefined;
      return this.syncNow();
    });
    this.waiting = flush;
    this.unsettled++;
    this.tail = flush.then(this.settled, this.settled);
    return flush;
  }

  /** Closes the descriptor now, or once the flushes under way have settled. */
  close(): void {
    if (this.unsettled === 0) this.closeNow();
    else this.closeWhenSettled = true;
  }

  private readonly settled = (): void => {
    if (--this.unsettled === 0 && this.closeWhenSettled) this.closeNow();
  };

  private syncNow(): Promise<void> {
    return new Promise((resolve, reject) => this.syncFile(this.fd, (error) => (error ? reject(error) : resolve())));
  }

  private closeNow(): void {
    this.closeWhenSettled = false;
    try {
      closeSync(this.fd);
    } catch {
      // Already gone: nothing holds it.
    }
  }
}
