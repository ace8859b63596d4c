import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { waitUntil } from "@knightcode/testkit";
import { decodeCapped, execProgram } from "../../src/extensions/exec.js";
import { ProcessGroups } from "@knightcode/system/process/groups";
import { assertGone, isGone, killAfter } from "@knightcode/system/test/tools/processes";
import { tempDir } from "../tools/support.js";

test("output is decoded once from its bytes: a character the cap cut in two is left out, never U+FFFD", () => {
  const text = Buffer.from("é€😀 done", "utf8");
  assert.equal(decodeCapped(text, false), "é€😀 done");
  // Cut inside the two-, three- and four-byte characters.
  for (const [cut, whole] of [
    [1, ""],
    [4, "é"],
    [7, "é€"],
  ] as const)
    assert.equal(decodeCapped(text.subarray(0, cut), true), whole);
});

test("a character written in pieces reaches the caller whole, on stdout and stderr", async (t) => {
  const dir = await tempDir(t);
  // Each piece is written once the one before it was flushed: the reader may see them as separate chunks.
  const script = `
    const text = Buffer.from("é€😀 done", "utf8");
    const cuts = [1, 4, 7, text.length];
    let from = 0;
    const next = (i) => {
      if (i === cuts.length) return;
      const part = text.subarray(from, cuts[i]);
      from = cuts[i];
      let flushed = 0;
      const both = () => ++flushed === 2 && next(i + 1);
      process.stdout.write(part, both);
      process.stderr.write(part, both);
    };
    next(0);
  `;
  const result = await execProgram(process.execPath, ["-e", script], { cwd: dir });
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "é€😀 done");
  assert.equal(result.stderr, "é€😀 done");
});

test("output stops at 16 MiB counted in bytes, without a broken last character", async (t) => {
  const dir = await tempDir(t);
  // One ASCII byte first, so the cap falls in the middle of a two-byte character.
  const script = `process.stdout.write("a" + "é".repeat(9 * 1024 * 1024))`;
  const result = await execProgram(process.execPath, ["-e", script], { cwd: dir });
  assert.equal(result.code, 0);
  assert.equal(Buffer.byteLength(result.stdout), 16 * 1024 * 1024 - 1);
  assert.ok(!result.stdout.includes("\uFFFD"));
  assert.ok(result.stdout.endsWith("éé"));
});

test("the program's background children stay with its owner, which kills them on dispose", async (t) => {
  const dir = await tempDir(t);
  const processes = new ProcessGroups({ killGraceMs: 500 });
  t.after(() => processes.dispose());
  const result = await execProgram("bash", ["-c", "sleep 1000 > /dev/null 2>&1 & echo $!"], { cwd: dir, processes });
  const pid = Number(result.stdout);
  killAfter(t, pid);
  assert.equal(isGone(pid), false);
  assert.equal(processes.size, 1);
  await processes.dispose();
  await assertGone(pid);
});

test("a timeout kills the whole group at once", async (t) => {
  const dir = await tempDir(t);
  const processes = new ProcessGroups();
  t.after(() => processes.dispose());
  const result = await execProgram("bash", ["-c", "sleep 1000 & echo $!; wait"], { cwd: dir, timeout: 200, processes });
  assert.equal(result.timedOut, true);
  assert.equal(result.signal, "SIGKILL");
  await assertGone(Number(result.stdout));
});

test("a program killed from outside answers with the signal, and the children holding its pipes are stopped", async (t) => {
  const dir = await tempDir(t);
  const processes = new ProcessGroups();
  t.after(() => processes.dispose());
  // The child inherits stdout: without the stop, the answer would wait for it to end.
  const running = execProgram("bash", ["-c", "echo $$ > program.pid; sleep 1000 & echo $! > child.pid; wait"], { cwd: dir, processes });
  const pidIn = (name: string) =>
    waitUntil(`a pid in ${name}`, () => {
      const pid = existsSync(join(dir, name)) ? Number(readFileSync(join(dir, name), "utf8").trim()) : NaN;
      return Number.isSafeInteger(pid) && pid > 1 ? pid : undefined;
    });
  const child = await pidIn("child.pid");
  killAfter(t, child);
  process.kill(await pidIn("program.pid"), "SIGKILL");
  const result = await running;
  assert.equal(result.code, null);
  assert.equal(result.signal, "SIGKILL");
  assert.equal(result.timedOut, false);
  await assertGone(child);
});
