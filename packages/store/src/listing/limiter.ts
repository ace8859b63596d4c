/** At most `max` tasks at once; the others wait their turn in order. */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.max) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot passes straight to the next task, so `active` never overshoots.
      const next = this.waiting.shift();
      if (next === undefined) this.active--;
      else next();
    }
  }
}
