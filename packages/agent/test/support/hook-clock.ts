import type { HookClock } from "../../src/extensions/hook-limit.js";

/** A clock for the extension time limit whose timers fire only when the test says so, and that shows which are still set. */
export class ManualClock implements HookClock {
  readonly timers = new Set<{ ms: number; fire: () => void }>();

  after(ms: number, fire: () => void): () => void {
    const timer = { ms, fire };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  fireAll(): void {
    for (const timer of [...this.timers]) {
      this.timers.delete(timer);
      timer.fire();
    }
  }
}
