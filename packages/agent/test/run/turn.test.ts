import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { TurnRecord } from "../../src/run/turn.js";
import { runEnv, type RunEnv } from "../support/env.js";
import { waitUntil } from "@knightcode/testkit";

let env: RunEnv;
before(async () => {
  env = await runEnv();
});
after(() => env.close());

describe("a turn's one record", () => {
  test("moves admitting -> starting -> running -> settling -> ended, and no other way", () => {
    const turn = new TurnRecord();
    assert.equal(turn.phase, "admitting");
    assert.throws(() => turn.begin("t1", 1), /cannot go from admitting to running/);
    turn.launch();
    turn.begin("t1", 5);
    assert.deepEqual([turn.phase, turn.id, turn.startedAt, turn.accepting], ["running", "t1", 5, true]);
    turn.settle();
    turn.settle();
    assert.equal(turn.accepting, false);
    turn.end({ status: "completed", completedAt: 9 });
    assert.equal(turn.phase, "ended");
    assert.throws(() => turn.launch(), /cannot go from ended/);
  });

  test("an interrupt aborts its signal once; an ended turn cannot be interrupted", () => {
    const turn = new TurnRecord();
    let aborts = 0;
    turn.signal.addEventListener("abort", () => aborts++);
    assert.equal(turn.interrupt(), true);
    assert.equal(turn.interrupt(), false);
    assert.equal(aborts, 1);
    const ended = new TurnRecord();
    ended.launch();
    ended.begin("t2", 1);
    ended.settle();
    ended.end({ status: "completed", completedAt: 2 });
    assert.equal(ended.interrupt(), false);
    assert.equal(ended.signal.aborted, false);
  });

  test("a turn interrupted before its start entry still gets one, ends interrupted and asks the model nothing", async () => {
    const { session, transcript } = await env.session();
    const turn = new TurnRecord();
    turn.interrupt();
    const before = env.model.requests.length;
    const result = await session.runTurn({ text: "never sent" }, turn);
    assert.equal(result.status, "interrupted");
    assert.equal(turn.phase, "ended");
    assert.deepEqual(turn.outcome?.status, "interrupted");
    assert.equal(env.model.requests.length, before);
    assert.equal(transcript.ofType("turn_start").length, 1);
    assert.equal(transcript.ofType("turn_end")[0]!.status, "interrupted");
    assert.equal(session.runningTurn, undefined);
  });

  test("the session runs the record its owner holds: the owner's interrupt stops the model request", async () => {
    const { session, events } = await env.session();
    env.model.enqueue({ text: ["one", " two"], pauseAfter: 2 });
    const turn = new TurnRecord();
    const running = session.runTurn({ text: "go" }, turn);
    await waitUntil("the reply to stream", () => events.some((e) => e.type === "message_update" && e.event.type === "text_delta"));
    assert.equal(session.runningTurn, turn);
    assert.equal(session.steer("more"), true);
    turn.interrupt();
    assert.equal(session.steer("too late"), false, "an interrupted turn takes no input");
    assert.equal((await running).status, "interrupted");
  });
});
