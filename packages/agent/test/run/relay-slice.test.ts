import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MIN_RELAY_SLICE_MS, RELAY_SLICE_MS, RelaySlice } from "../../src/run/relay-slice.js";

const turnOfTheLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const immediates = () => process.getActiveResourcesInfo().filter((name) => name === "Immediate").length;

describe("a relay slice", () => {
  test("the first event counts from itself, however long the model took to send it", () => {
    const slice = new RelaySlice();
    assert.equal(slice.spent(1_000_000), 0);
  });

  test("events relayed without a turn of the loop add up, past the slice's length", () => {
    const slice = new RelaySlice();
    slice.spent(100);
    assert.equal(slice.spent(102), 2);
    assert.ok(slice.spent(100 + RELAY_SLICE_MS + 1) > RELAY_SLICE_MS);
  });

  test("once the loop turned, as it does while the relay waits for the model, the next event starts a new slice", async () => {
    const slice = new RelaySlice();
    slice.spent(100);
    assert.equal(slice.spent(103), 3);
    await turnOfTheLoop();
    await turnOfTheLoop();
    assert.equal(slice.spent(500), 0);
    assert.equal(slice.spent(501), 1);
  });

  test("a restart after the relay let the loop turn counts from there; any number of slices share one immediate", async () => {
    // Turns in which no slice began: the counter of an earlier test's slices has stopped.
    for (let i = 0; i < 3; i++) await turnOfTheLoop();
    const before = immediates();
    const slices = Array.from({ length: 50 }, () => new RelaySlice());
    for (const slice of slices) slice.spent(0);
    slices[0]!.restart(10);
    assert.equal(slices[0]!.spent(12), 2);
    assert.equal(immediates(), before + 1);
    await turnOfTheLoop();
    await turnOfTheLoop();
    assert.equal(immediates(), before, "the count stops with the first turn in which no slice began");
  });

  test("replies relaying in the same turns of the loop share the slice, never below the least; alone, one has it whole", async () => {
    // Turns in which no slice began: nothing is left of any other test's replies.
    for (let i = 0; i < 3; i++) await turnOfTheLoop();
    const alone = new RelaySlice();
    alone.spent(0);
    assert.equal(alone.length(), RELAY_SLICE_MS);
    await turnOfTheLoop();
    const four = Array.from({ length: 4 }, () => new RelaySlice());
    for (const slice of four) slice.spent(0);
    assert.equal(four[0]!.length(), RELAY_SLICE_MS / 4);
    const fifty = Array.from({ length: 46 }, () => new RelaySlice());
    for (const slice of fifty) slice.spent(0);
    assert.equal(fifty[0]!.length(), MIN_RELAY_SLICE_MS, "fifty at once: each gets the least");
    await turnOfTheLoop();
    // The turn after still counts the fifty: a reply that resumes first must not take the whole slice.
    const next = new RelaySlice();
    next.spent(0);
    assert.equal(next.length(), MIN_RELAY_SLICE_MS);
    await turnOfTheLoop();
    await turnOfTheLoop();
    next.spent(1);
    assert.equal(next.length(), RELAY_SLICE_MS, "once the others stopped relaying, the one left has it whole");
  });
});

describe("a slice that is due, and its pause", () => {
  test("due once its work passed its length; pause lets what was queued run first, then begins anew", async () => {
    for (let i = 0; i < 3; i++) await turnOfTheLoop();
    const slice = new RelaySlice();
    assert.equal(slice.due(0), false, "the first event starts the slice");
    assert.equal(slice.due(RELAY_SLICE_MS), false, "at its length, not past it");
    assert.equal(slice.due(RELAY_SLICE_MS + 0.01), true);
    const order: string[] = [];
    setImmediate(() => order.push("queued before the pause"));
    const paused = performance.now();
    await slice.pause();
    const resumed = performance.now();
    order.push("after the pause");
    assert.deepEqual(order, ["queued before the pause", "after the pause"]);
    // The slice began at 0; after the pause it counts from the moment it resumed, not from then.
    assert.ok(slice.spent(resumed) <= resumed - paused, "a new slice begins after the pause");
  });
});
