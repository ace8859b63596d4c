import type { RequestId } from "@knightcode/app-server-protocol";

/**
 * One accepted client request. It is answered exactly once: whichever of
 * the handler's result, its failure or the shutdown deadline comes first
 * wins, and anything later is dropped.
 */
export class InFlightRequest {
  readonly controller = new AbortController();
  private isSettled = false;
  readonly settled: Promise<void>;
  private markSettled!: () => void;
  private readonly answered: (() => void)[] = [];

  constructor(
    readonly id: RequestId,
    readonly method: string,
    private readonly answer: (message: Record<string, unknown>) => void,
  ) {
    this.settled = new Promise((resolve) => (this.markSettled = resolve));
  }

  get done(): boolean {
    return this.isSettled;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Sends the answer unless one was already sent; returns whether this call sent it. */
  settle(message: { result: unknown } | { error: unknown }): boolean {
    if (this.isSettled) return false;
    this.isSettled = true;
    this.answer({ id: this.id, ...message });
    this.markSettled();
    this.runAnswered();
    return true;
  }

  /** Runs `run` right after the answer is written, in the same step; at once when it was. */
  afterAnswer(run: () => void): void {
    if (this.isSettled) run();
    else this.answered.push(run);
  }

  private runAnswered(): void {
    for (const run of this.answered.splice(0)) run();
  }

  /** The connection went away: nothing can be answered any more. */
  abandon(reason: string): void {
    if (!this.isSettled) {
      this.isSettled = true;
      this.markSettled();
      this.runAnswered();
    }
    this.controller.abort(new Error(reason));
  }
}
