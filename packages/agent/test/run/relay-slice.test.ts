import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RELAY_SLICE_MS, RelaySlice } from "../../src/run/stall-guard.js";

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
    await turnOfTheLoop();
    const before = immediates();
    const slices = Array.from({ length: 50 }, () => new RelaySlice());
    for (const slice of slices) slice.spent(0);
    slices[0]!.restart(10);
    assert.equal(slices[0]!.spent(12), 2);
    assert.equal(immediates(), before + 1);
    await turnOfTheLoop();
    await turnOfTheLoop();
    assert.equal(immediates(), before);
  });
});
