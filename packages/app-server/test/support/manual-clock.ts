import type { ShutdownClock } from "../../src/index.js";

/** A shutdown clock whose deadlines fire when the test says, not when time passes. */
export function manualClock() {
  const deadlines: { ms: number; fire(): void }[] = [];
  const clock: ShutdownClock = {
    after(ms) {
      let fire!: () => void;
      const promise = new Promise<void>((resolve) => (fire = resolve));
      deadlines.push({ ms, fire });
      return { promise, cancel: () => undefined };
    },
  };
  return {
    clock,
    asked: () => deadlines.map((d) => d.ms),
    fire: (ms: number) => {
      for (const d of deadlines.filter((d) => d.ms === ms)) d.fire();
    },
  };
}
