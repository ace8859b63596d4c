import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { describe, test } from "node:test";
import { runHandler } from "../../src/extensions/hook-limit.js";
import { ManualClock } from "../support/hook-clock.js";

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Collects unhandled rejections while `body` runs and one turn of the event loop after it. */
async function unhandledDuring(body: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on("unhandledRejection", listener);
  try {
    await body();
    // Node reports an unhandled rejection once the microtasks run dry, before the next macrotask.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("unhandledRejection", listener);
  }
  return seen;
}

describe("the time limit of one handler", () => {
  test("a synchronous value or throw needs no timer", async () => {
    const clock = new ManualClock();
    assert.deepEqual(await runHandler(() => 42, { limitMs: 100, clock }), { kind: "returned", value: 42 });
    const error = new Error("sync boom");
    assert.deepEqual(
      await runHandler(
        () => {
          throw error;
        },
        { limitMs: 100, clock },
      ),
      { kind: "threw", error },
    );
    assert.equal(clock.timers.size, 0);
  });

  test("a handler that finishes in time gives its value, and its timer is gone", async () => {
    const clock = new ManualClock();
    const handler = deferred<string>();
    const running = runHandler(() => handler.promise, { limitMs: 100, clock });
    assert.deepEqual(
      [...clock.timers].map((t) => t.ms),
      [100],
    );
    handler.resolve("done");
    assert.deepEqual(await running, { kind: "returned", value: "done" });
    assert.equal(clock.timers.size, 0);
  });

  test("a handler that rejects in time is a throw, and its timer is gone", async () => {
    const clock = new ManualClock();
    const error = new Error("async boom");
    assert.deepEqual(await runHandler(() => Promise.reject(error), { limitMs: 100, clock }), { kind: "threw", error });
    assert.equal(clock.timers.size, 0);
  });

  test("a handler past the limit is abandoned; what it settles with later is dropped, a rejection included", async () => {
    const clock = new ManualClock();
    const late = deferred<string>();
    const unhandled = await unhandledDuring(async () => {
      const running = runHandler(() => late.promise, { limitMs: 250, clock });
      clock.fireAll();
      assert.deepEqual(await running, { kind: "timedOut", limitMs: 250 });
      late.reject(new Error("too late"));
    });
    assert.deepEqual(unhandled, []);
  });

  test("real timers: a handler that never settles times out after the limit and leaves no timer behind", async () => {
    const started = Date.now();
    const outcome = await runHandler(() => new Promise(() => {}), { limitMs: 30 });
    assert.deepEqual(outcome, { kind: "timedOut", limitMs: 30 });
    assert.ok(Date.now() - started >= 25);
  });

  test("an interrupt stops the wait at once, and the limit's timer and the abort listener go", async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const running = runHandler(() => new Promise(() => {}), { limitMs: 100, signal: controller.signal, clock });
    assert.equal(getEventListeners(controller.signal, "abort").length, 1);
    controller.abort();
    assert.deepEqual(await running, { kind: "interrupted" });
    assert.equal(clock.timers.size, 0);
    assert.equal(getEventListeners(controller.signal, "abort").length, 0);
    const other = new AbortController();
    const finished = deferred<void>();
    const settledFirst = runHandler(() => finished.promise, { limitMs: 100, signal: other.signal, clock });
    finished.resolve();
    await settledFirst;
    assert.equal(clock.timers.size, 0);
    assert.equal(getEventListeners(other.signal, "abort").length, 0, "a handler that finished leaves no listener on the turn's signal");
  });

  test("a turn already interrupted does not wait, and a later rejection of the handler is not unhandled", async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    controller.abort();
    const late = deferred<void>();
    const unhandled = await unhandledDuring(async () => {
      assert.deepEqual(await runHandler(() => late.promise, { limitMs: 100, signal: controller.signal, clock }), { kind: "interrupted" });
      late.reject(new Error("after the interrupt"));
    });
    assert.deepEqual(unhandled, []);
    assert.equal(clock.timers.size, 0);
  });
});
