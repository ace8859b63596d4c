import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { userMessage } from "../../src/run/messages.js";
import { SteerQueue } from "../../src/run/steer-queue.js";

describe("the steer queue", () => {
  test("one entry goes from held to accepted to delivered; listeners hear only what a client sees", () => {
    const queue = new SteerQueue();
    let changes = 0;
    const stop = queue.subscribe(() => changes++);
    const held = queue.hold("t1");
    assert.deepEqual(queue.pending(), [], "a held steer is not pending yet");
    assert.equal(changes, 0);
    const message = userMessage("look at the tests", [{ type: "image", data: "QUJD", mimeType: "image/png" }]);
    queue.accept(message, held);
    queue.release(held);
    assert.deepEqual(queue.pending(), ["look at the tests"], "releasing an accepted steer keeps it");
    assert.deepEqual(queue.held(), { inputs: 1, textBytes: 17, imageBytes: 4 });
    assert.equal(changes, 1);
    assert.equal(queue.delivered(userMessage("look at the tests")), false, "delivery is noticed by identity");
    assert.equal(queue.delivered(message), true);
    assert.deepEqual(queue.pending(), []);
    assert.equal(queue.hasAccepted, false);
    assert.equal(changes, 2);
    stop();
  });

  test("a cancelled held steer aborts its signal and leaves on release; accepted steers stay until their turn ends", () => {
    const queue = new SteerQueue();
    const first = queue.hold("t1");
    const other = queue.hold("t2");
    queue.accept(userMessage("kept"));
    queue.cancelHeld((steer) => steer.turnId === "t1");
    assert.equal(first.cancelled, true);
    assert.equal(first.signal.aborted, true);
    assert.equal(other.cancelled, false);
    queue.release(first);
    queue.release(other);
    assert.deepEqual(queue.pending(), ["kept"]);
    let changes = 0;
    queue.subscribe(() => changes++);
    queue.dropAccepted();
    queue.dropAccepted();
    assert.deepEqual(queue.pending(), []);
    assert.equal(changes, 1, "dropping nothing is no change");
  });
});
