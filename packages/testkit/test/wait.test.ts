import { strict as assert } from "node:assert";
import { test } from "node:test";
import { waitUntil, waitUntilAsync } from "../src/wait.js";

test("waitUntil refuses a probe that returns a promise instead of taking the promise as the condition met", async () => {
  const probe = (async () => false) as unknown as () => boolean;
  await assert.rejects(waitUntil("a page's answer", probe, 1_000), /returned a promise; use waitUntilAsync/);
});

test("waitUntil and waitUntilAsync resolve with the probe's first value that is neither undefined nor false", async () => {
  let looks = 0;
  assert.equal(await waitUntil("the third look", () => ++looks >= 3 && looks), 3);
  let asks = 0;
  assert.equal(await waitUntilAsync("the second answer", async () => ++asks >= 2 && "ready"), "ready");
  await assert.rejects(
    waitUntil("nothing", () => false, 20),
    /timed out after 20 ms waiting for nothing/,
  );
});
