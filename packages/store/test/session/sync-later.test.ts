import assert from "node:assert/strict";
import { fstatSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { SyncFile } from "../../src/session/flusher.js";
import { readSession } from "../../src/session/read.js";
import { SessionFile } from "../../src/session/session-file.js";
import { rejectsWithCode, tempDir, userText } from "./helpers.js";

const dir = tempDir("sync-later");
const say = (text: string) => ({ type: "message", message: userText(text) }) as const;

/** A new transcript whose syncs wait until the test lets each return: what a slow disk looks like from the event loop. */
async function heldFile() {
  const calls: { fd: number; release: (error?: NodeJS.ErrnoException) => void }[] = [];
  const syncFile: SyncFile = (fd, done) => calls.push({ fd, release: (error) => done(error ?? null) });
  return { calls, file: await SessionFile.create({ dir, cwd: "/p", syncFile }) };
}

/** Resolves after every callback already queued has run: a sync asked for by then has reached the (held) disk. */
const loopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether `fd` is still this process's descriptor for `path` (a closed number may have been reused for another file). */
function stillOpenOn(fd: number, path: string): boolean {
  try {
    const open = fstatSync(fd);
    const named = statSync(path);
    return open.ino === named.ino && open.dev === named.dev;
  } catch {
    return false;
  }
}

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  // A promise that can settle without the disk has, after every callback already queued.
  await loopTurn();
  return done;
};

describe("appendThenSync: a durable append whose sync runs off the event loop", () => {
  test("the entry is in the file at once; it counts as durable only once the sync returns", async () => {
    const { calls, file } = await heldFile();
    const { entry, durable } = file.appendThenSync({ type: "turn_end", turnId: "t1", status: "completed" });
    assert.equal(file.leafId, entry.id);
    assert.equal((await readSession(file.path)).entries.at(-1)?.id, entry.id);
    await loopTurn();
    assert.equal(calls.length, 1);
    assert.equal(await settled(durable), false);
    calls[0]!.release();
    await durable;
    file.close();
  });

  test("asks made before a sync begins share it; an ask made while one runs gets a sync of its own after it", async () => {
    const { calls, file } = await heldFile();
    const first = file.appendThenSync(say("one")).durable;
    const shared = file.appendThenSync(say("two")).durable;
    await loopTurn();
    assert.equal(calls.length, 1, "both lines were written before the sync began");
    const later = file.appendThenSync(say("three")).durable;
    await loopTurn();
    assert.equal(calls.length, 1, "the next sync waits for the one under way");
    calls[0]!.release();
    await Promise.all([first, shared]);
    assert.equal(await settled(later), false, "the third line was written after the first sync began");
    assert.equal(calls.length, 2);
    calls[1]!.release();
    await later;
    file.close();
  });

  test("a failed sync rejects with writeFailed and the system's reason; the next one is tried afresh", async () => {
    const { calls, file } = await heldFile();
    const failing = file.appendThenSync(say("one")).durable;
    await loopTurn();
    calls[0]!.release(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
    const error = await rejectsWithCode(failing, "writeFailed");
    assert.match(error.message, /could not sync .*EIO/);
    assert.equal((error.cause as { code?: string }).code, "EIO");
    const next = file.appendThenSync(say("two")).durable;
    await loopTurn();
    calls[1]!.release();
    await next;
    file.close();
  });

  test("closing while a sync is held keeps the descriptor until the sync returns, then closes it", async () => {
    const { calls, file } = await heldFile();
    const { durable } = file.appendThenSync(say("one"));
    await loopTurn();
    const { fd } = calls[0]!;
    file.close();
    assert.equal(stillOpenOn(fd, file.path), true, "the pool may still be about to sync this number");
    calls[0]!.release();
    await durable;
    assert.equal(stillOpenOn(fd, file.path), false);
    assert.throws(() => file.appendThenSync(say("two")), { code: "closed" });
    const reopened = await SessionFile.open(file.path);
    assert.equal(reopened.branch().length, 1);
    reopened.close();
  });

  test("through the real fdatasync; ownership is checked in full first, as for any durable append", async () => {
    const file = await SessionFile.create({ dir, cwd: "/p", ownershipCheckMs: 60_000 });
    const { entry, durable } = file.appendThenSync({ type: "turn_end", turnId: "t1", status: "completed" });
    await durable;
    assert.equal((await readSession(file.path)).entries.at(-1)?.id, entry.id);
    const impostor = join(dir, "impostor.jsonl");
    writeFileSync(impostor, readFileSync(file.path));
    renameSync(impostor, file.path);
    await rejectsWithCode(() => file.appendThenSync(say("x")), "ownershipLost");
    assert.equal(readFileSync(file.path, "utf8").includes('"x"'), false);
    file.close();
  });
});
