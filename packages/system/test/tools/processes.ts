import { readFileSync } from "node:fs";
import type { TestContext } from "node:test";
import type { StopTimers } from "../../src/process/groups.js";
import { waitUntil } from "@knightcode/testkit";

/** True once `pid` is gone or a zombie (dead, waiting for whoever adopted it to reap it). */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? true;
  } catch {
    return true;
  }
}

export async function assertGone(pid: number): Promise<void> {
  await waitUntil(`process ${pid} to die`, () => isGone(pid));
}

/** Kills `pid` when the test ends, should the test have failed before it died. */
export function killAfter(t: TestContext, pid: number): void {
  t.after(() => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  });
}

/** Timers that only move when the test says so. */
export class ManualTimers implements StopTimers {
  private now = 0;
  private lastId = 0;
  private readonly due = new Map<number, { at: number; callback: () => void }>();

  setTimeout(callback: () => void, ms: number): unknown {
    this.due.set(++this.lastId, { at: this.now + ms, callback });
    return this.lastId;
  }

  clearTimeout(handle: unknown): void {
    this.due.delete(handle as number);
  }

  get pending(): number {
    return this.due.size;
  }

  /** Runs, in time order, every callback that falls due within `ms`, including those scheduled meanwhile. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.due) if (entry[1].at <= end && (next === undefined || entry[1].at < next[1].at)) next = entry;
      if (next === undefined) break;
      this.due.delete(next[0]);
      this.now = next[1].at;
      next[1].callback();
    }
    this.now = end;
  }
}
