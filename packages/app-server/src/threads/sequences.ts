/**
 * The last `seq` of every thread this process has numbered, loaded or not:
 * a thread that unloads and loads again goes on from where it was, so an
 * `afterSeq` from before the unload never names a later notification.
 * Numbers start from the process's start time in milliseconds, so those of
 * a restarted server are past those of the one before it: an `afterSeq`
 * from the old process finds nothing to replay here rather than the wrong
 * events. One number per thread this process ever notified about.
 */
export class ThreadSequences {
  private readonly last = new Map<string, number>();

  constructor(private readonly base = Date.now()) {}

  /** The seq of the next notification about `threadId`, counted as sent. */
  next(threadId: string): number {
    const seq = this.current(threadId) + 1;
    this.last.set(threadId, seq);
    return seq;
  }

  /** The seq of the last notification about `threadId`; the base when there was none. */
  current(threadId: string): number {
    return this.last.get(threadId) ?? this.base;
  }
}
