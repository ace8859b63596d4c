/** A steer still in the input hooks, waiting to join the turn it named. */
export interface SteerWaiter {
  readonly turnId: string;
  readonly signal: AbortSignal;
  /** Its turn ended or was interrupted: it joins nothing. */
  readonly cancelled: boolean;
}

/** The steers in interception; an ending or interrupted turn cancels its own. */
export class SteerWaiters {
  private readonly waiting = new Map<SteerWaiter, AbortController>();

  open(turnId: string): SteerWaiter {
    const controller = new AbortController();
    const waiter = {
      turnId,
      signal: controller.signal,
      get cancelled() {
        return controller.signal.aborted;
      },
    };
    this.waiting.set(waiter, controller);
    return waiter;
  }

  close(waiter: SteerWaiter): void {
    this.waiting.delete(waiter);
  }

  cancel(which: (waiter: SteerWaiter) => boolean = () => true): void {
    for (const [waiter, controller] of this.waiting) if (which(waiter)) controller.abort();
  }
}
