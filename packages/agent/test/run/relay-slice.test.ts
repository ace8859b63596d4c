import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MIN_RELAY_SLICE_MS, RELAY_SLICE_MS, RelaySlice } from "../../src/run/relay-slice.js";
import { countLoopTurns } from "../support/loop-turns.js";

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

describe("the turn's budget, shared by all the slices of a turn of the loop", () => {
  /**
   * After turns in which no slice began or waited (nothing is left of any
   * other test's slices): `count` slices begun at 0 on the test's clock,
   * which then moves past the turn's budget, so no pause hands the turn on.
   */
  async function pastTheBudget(count: number) {
    for (let i = 0; i < 4; i++) await turnOfTheLoop();
    const clock = { now: 0 };
    const slices = Array.from({ length: count }, () => new RelaySlice(() => clock.now));
    for (const slice of slices) assert.equal(slice.due(), false, "a slice's first event is never due in a new turn");
    clock.now = RELAY_SLICE_MS + 1;
    return { clock, slices, slice: () => new RelaySlice(() => clock.now) };
  }

  test("once the slices of a turn used its budget, another is due before its first event; one the pump resumed still does its part", async () => {
    const { clock, slice } = await pastTheBudget(1);
    const late = slice();
    assert.equal(late.due(), true, "the budget is spent: the late one waits for a later turn, before it handles anything");
    // In the next turn, another slice spends that turn's budget before the pump resumes the late one (an immediate queued first).
    const busy = slice();
    setImmediate(() => {
      clock.now = 100;
      busy.due();
      clock.now = 100 + RELAY_SLICE_MS + 1;
    });
    await late.pause();
    assert.equal(clock.now, 100 + RELAY_SLICE_MS + 1, "resumed after the busy slice spent the turn");
    assert.equal(late.due(), false, "just resumed, it does its part even though the turn's budget is gone");
    clock.now += late.length() + 0.01;
    assert.equal(late.due(), true, "and then it is due");
  });

  test("paused slices resume one per turn of the loop, in the order they paused", async () => {
    const { slices } = await pastTheBudget(3);
    const loop = countLoopTurns();
    const resumed: [number, number][] = [];
    await Promise.all(slices.map((slice, i) => slice.pause().then(() => resumed.push([i, loop.turns]))));
    loop.stop();
    assert.deepEqual(
      resumed.map(([i]) => i),
      [0, 1, 2],
    );
    assert.ok(resumed[0]![1] < resumed[1]![1] && resumed[1]![1] < resumed[2]![1], `one a turn: ${JSON.stringify(resumed)}`);
  });

  test("a slice that pauses while the turn's budget lasts hands the turn on to the next one waiting, without a turn of the loop", async () => {
    const {
      slices: [a, b],
    } = await pastTheBudget(2);
    const bWaits = b!.pause();
    const aWaits = a!.pause();
    // The pump resumes b first (it paused first); b pauses again at once, while its new turn's budget lasts: a goes on in that turn.
    await bWaits;
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const bAgain = b!.pause();
    await aWaits;
    assert.equal(turned, false, "a went on before the loop turned");
    await bAgain;
  });

  test("a slice's first pause goes ahead of slices that paused more often", async () => {
    const {
      clock,
      slices: [old],
      slice,
    } = await pastTheBudget(1);
    const fresh = slice();
    await old!.pause();
    clock.now += RELAY_SLICE_MS + 1;
    const order: string[] = [];
    await Promise.all([old!.pause().then(() => order.push("old")), fresh.pause().then(() => order.push("fresh"))]);
    assert.deepEqual(order, ["fresh", "old"], "the one pausing for the first time went first, though it paused last");
  });

  test("while many wait for a turn, each slice gets a part of the budget as small as their number asks, never below the least", async () => {
    const { slices } = await pastTheBudget(3);
    const waits = slices.slice(1).map((slice) => slice.pause());
    assert.equal(slices[0]!.length(), Math.max(MIN_RELAY_SLICE_MS, RELAY_SLICE_MS / 3), "itself and the two waiting");
    await Promise.all(waits);
  });
});
