import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { waitUntil } from "@knightcode/testkit";
import { TurnRefusal } from "../../src/turn/errors.js";
import { TurnController } from "../../src/turn/controller.js";
import type { TurnEnd } from "../../src/turn/observer.js";
import type { InputOutcome } from "../../src/turn/run-record.js";
import { runEnv, type RunEnv } from "../support/env.js";

let env: RunEnv;
before(async () => {
  env = await runEnv();
});
after(() => env.close());

const passThrough = async (text: string, images: []): Promise<InputOutcome> => ({ action: "continue", text, images });

async function controlled() {
  const { session, transcript } = await env.session();
  const turns = new TurnController({ threadId: "thread-1" });
  turns.bind({ session, processInput: passThrough as never });
  const seen: string[] = [];
  const ended: TurnEnd[] = [];
  turns.observe({
    started: (turn) => seen.push(`started ${turn.meta.clientMessageId ?? ""}`),
    completed: (end) => {
      seen.push(`completed ${end.status}`);
      ended.push(end);
    },
    queueChanged: () => undefined,
    activityChanged: () => undefined,
    dropped: (message) => seen.push(`dropped ${message}`),
  });
  return { session, transcript, turns, seen, ended };
}

describe("the turn controller", () => {
  test("a second start is refused while a turn holds the thread; queued input starts a turn of its own after it", async () => {
    const { turns, seen, ended } = await controlled();
    let release!: () => void;
    env.model.enqueue({ text: ["one"], pauseAfter: 1, gate: new Promise<void>((r) => (release = r)) }, { text: "two" });
    const outcome = await turns.start({ text: "first", images: [] });
    assert.equal(outcome.status, "started");
    await assert.rejects(turns.start({ text: "again", images: [] }), (error: unknown) => error instanceof TurnRefusal && error.code === "turnInProgress");
    turns.queueAdd({ text: "queued", images: [], clientMessageId: "c2" });
    assert.deepEqual(turns.queueSnapshot().followUp, [{ id: "q1", text: "queued" }]);
    release();
    await waitUntil("both turns to end", () => ended.length === 2);
    await turns.settled();
    assert.deepEqual(seen, ["started ", "completed completed", "started c2", "completed completed"]);
    await turns.close();
  });

  test("a steer is held through the input hooks, accepted into the running turn and delivered within it", async () => {
    const { turns, ended, transcript } = await controlled();
    let release!: () => void;
    env.model.setFallback({ text: "noted" });
    env.model.enqueue({ text: ["working"], pauseAfter: 1, gate: new Promise<void>((r) => (release = r)) });
    const outcome = await turns.start({ text: "go", images: [] });
    assert.equal(outcome.status, "started");
    const turnId = outcome.status === "started" ? outcome.turnId : "";
    await assert.rejects(turns.steer("not-it", "x", []), (error: unknown) => error instanceof TurnRefusal && error.code === "turnMismatch");
    assert.deepEqual(await turns.steer(turnId, "also this", []), { status: "steered", turnId });
    assert.deepEqual(turns.queueSnapshot().steering, ["also this"]);
    release();
    await waitUntil("the turn to end", () => ended.length === 1);
    assert.equal(ended[0]!.status, "completed");
    assert.deepEqual(turns.queueSnapshot().steering, []);
    const users = transcript.ofType("message").filter((e) => (e.message as { role: string }).role === "user");
    assert.equal(users.length >= 2, true, "the steer was recorded in the turn");
    await turns.close();
  });

  test("interrupt drops the queue and stops the running turn, which ends interrupted", async () => {
    const { turns, ended } = await controlled();
    env.model.enqueue({ text: ["a", "b"], pauseAfter: 1, gate: new Promise<void>(() => undefined) });
    const outcome = await turns.start({ text: "go", images: [] });
    turns.queueAdd({ text: "later", images: [] });
    assert.equal(turns.interrupt(outcome.status === "started" ? outcome.turnId : undefined), true);
    assert.equal(turns.hasQueued, false);
    await waitUntil("the turn to end", () => ended.length === 1);
    assert.equal(ended[0]!.status, "interrupted");
    await turns.close();
  });
});
