import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import type { SyncFile } from "@knightcode/store/session/flusher";
import { waitUntil } from "@knightcode/testkit";
import { ThreadFault } from "@knightcode/store/session/fault";
import { eventTypes, runEnv, type RunEnv } from "../support/env.js";

let env: RunEnv;
before(async () => {
  env = await runEnv();
});
after(() => env.close());

/** Syncs that return only when the test says: a slow disk, seen from the event loop. */
function heldSyncs() {
  const calls: ((error?: NodeJS.ErrnoException) => void)[] = [];
  const syncFile: SyncFile = (_fd, done) => calls.push((error) => done(error ?? null));
  return { calls, syncFile };
}

describe("a turn's end is synced off the event loop", () => {
  test("turn_end is written, then heard of only once it is on disk; the process goes on meanwhile", async () => {
    const { calls, syncFile } = heldSyncs();
    const { session, transcript, events } = await env.session({ syncFile });
    env.model.enqueue({ text: ["done"] });
    let ended = false;
    const run = session.runTurn({ text: "go" }).then((result) => ((ended = true), result));
    await waitUntil("the turn's end to ask for a sync", () => calls.length === 1);
    assert.ok(readFileSync(transcript.file.path, "utf8").includes('"type":"turn_end"'), "the line is written before the sync");
    // waitUntil polled on timers while the sync was held: nothing but this turn waits on the disk.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(ended, false);
    assert.equal(eventTypes(events).includes("turn_end"), false, "nobody hears of an end that is not on disk");
    calls[0]!();
    const result = await run;
    assert.equal(result.status, "completed");
    assert.equal(eventTypes(events).at(-1), "turn_end");
    assert.equal(session.fatal, undefined);
    assert.deepEqual(
      transcript.branch().map((e) => e.type),
      ["turn_start", "message", "message", "turn_end"],
    );
  });

  test("a sync that fails stops the thread as a failed write does, and keeps nothing to write again", async () => {
    const { calls, syncFile } = heldSyncs();
    const { session, transcript, events } = await env.session({ syncFile });
    env.model.enqueue({ text: ["done"] });
    const run = session.runTurn({ text: "go" });
    await waitUntil("the turn's end to ask for a sync", () => calls.length === 1);
    calls[0]!(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
    const result = await run;
    assert.equal(result.status, "completed", "the turn ran to its end; what failed is the disk under it");
    const fault = session.fatal;
    assert.ok(fault instanceof ThreadFault);
    assert.equal(fault.reason, "ioError");
    assert.deepEqual(
      events.filter((e) => e.type === "fatal" || e.type === "turn_end").map((e) => e.type),
      ["fatal", "turn_end"],
    );
    assert.deepEqual(session.writer.unsavedTail()?.entries ?? [], [], "the line is in the file: nothing is left to write");
    assert.equal(transcript.branch().at(-1)?.type, "turn_end");
    await assert.rejects(session.runTurn({ text: "again" }), ThreadFault);
  });
});
