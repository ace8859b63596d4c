import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { FileLock, LockHeldError } from "../../src/fs/file-lock.js";
import { currentProcess, readStartTicks } from "../../src/fs/process-identity.js";

const worker = fileURLToPath(new URL("./lock-worker.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "kc-lock-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const lockPath = () => join(dir, `l${n++}.lock`);

function holdInChild(path: string) {
  const child = spawn(process.execPath, [worker, "hold", path], { stdio: ["ignore", "pipe", "inherit"] });
  const ready = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  return { child, ready };
}

describe("FileLock", () => {
  test("acquire, refuse a second owner in the same process, release, re-acquire", () => {
    const path = lockPath();
    const lock = FileLock.acquire(path, "session");
    assert.equal(lock.isStillHeld(), true);
    assert.throws(() => FileLock.acquire(path), LockHeldError);
    lock.release();
    assert.equal(existsSync(path), false);
    FileLock.acquire(path).release();
  });

  test("a live holder in another process is never broken; its death frees the lock", async () => {
    const path = lockPath();
    const { child, ready } = holdInChild(path);
    await ready;
    const error = (() => {
      try {
        FileLock.acquire(path);
      } catch (e) {
        return e as LockHeldError;
      }
      return undefined;
    })();
    assert.ok(error instanceof LockHeldError);
    assert.equal(error.holder?.pid, child.pid);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    const lock = FileLock.acquire(path);
    assert.equal(lock.isStillHeld(), true);
    lock.release();
  });

  test("a lock naming a live pid with another start time (a reused pid) is stale", () => {
    const path = lockPath();
    const me = currentProcess();
    assert.ok(readStartTicks(process.ppid) !== undefined, "this test needs /proc");
    writeFileSync(path, JSON.stringify({ ...me, pid: process.ppid, startTicks: 1, token: "old", acquiredAt: 0 }));
    FileLock.acquire(path).release();
  });

  test("a lock from another host is never broken, however old", () => {
    const path = lockPath();
    writeFileSync(path, JSON.stringify({ pid: 1, host: "elsewhere.invalid", token: "t", acquiredAt: 0 }));
    utimesSync(path, new Date(0), new Date(0));
    assert.throws(() => FileLock.acquire(path), /held by process 1 on elsewhere.invalid/);
  });

  test("an unreadable lock is held while young and recovered once old", () => {
    const path = lockPath();
    writeFileSync(path, "{garbage");
    assert.throws(() => FileLock.acquire(path), LockHeldError);
    utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    FileLock.acquire(path).release();
  });

  test("isStillHeld notices a lock taken away on disk", () => {
    const path = lockPath();
    const lock = FileLock.acquire(path);
    rmSync(path);
    assert.equal(lock.isStillHeld(), false);
    writeFileSync(path, JSON.stringify({ ...currentProcess(), token: "someone-else", acquiredAt: 0 }));
    assert.equal(lock.isStillHeld(), false);
    lock.release();
    assert.equal(existsSync(path), true, "release never removes a lock it does not own");
  });

  test("six processes, some dying while holding it, never overlap inside the lock", async () => {
    const path = lockPath();
    const counter = join(dir, "counter");
    writeFileSync(counter, "0");
    const per = 40;
    const children = Array.from({ length: 6 }, (_, i) =>
      spawn(process.execPath, [worker, "count", path, counter, String(per), i % 2 === 0 ? "0.05" : "0"], { stdio: "inherit" }),
    );
    const codes = await Promise.all(children.map((c) => new Promise<number | null>((resolve) => c.on("exit", resolve))));
    assert.ok(
      codes.every((code) => code === 0),
      `exit codes ${codes}`,
    );
    // Every increment was logged; had two workers overlapped inside the lock, one increment would be lost.
    const value = Number(readFileSync(counter, "utf8"));
    const logged = readFileSync(`${counter}.log`, "utf8").length / 2;
    assert.equal(value, logged);
    assert.ok(value >= per * 3, `counter ${value}`);
    const lock = FileLock.acquire(path);
    lock.release();
  });
});
