import assert from "node:assert/strict";
import { test } from "node:test";
import { runLineProcess } from "../../src/process/line-run.js";
import { waitUntil } from "@knightcode/testkit";

test("stopping from onLine kills an endless producer", async () => {
  const lines: string[] = [];
  const result = await runLineProcess({
    file: "yes",
    args: ["row"],
    cwd: "/",
    env: process.env,
    onLine: (line) => lines.push(line) < 5,
  });
  assert.equal(result.stopped, true);
  assert.deepEqual(lines, ["row", "row", "row", "row", "row"]);
});

test("an abort kills the process and says it was aborted", async () => {
  const controller = new AbortController();
  const lines: string[] = [];
  // The process says its pid once it runs: the abort then meets a running process, not one still starting.
  const call = runLineProcess({
    file: "bash",
    args: ["-c", "echo $$; exec sleep 100"],
    cwd: "/",
    env: process.env,
    signal: controller.signal,
    onLine: (line) => lines.push(line) > 0,
  });
  const pid = Number(await waitUntil("the process to start", () => lines[0]));
  controller.abort();
  assert.equal((await call).aborted, true);
  await waitUntil(`process ${pid} to be gone`, () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  });
});

test("a last line without a newline is delivered, and stderr is kept", async () => {
  const lines: string[] = [];
  const result = await runLineProcess({
    file: "bash",
    args: ["-c", "printf 'a\\nb'; echo problem >&2; exit 4"],
    cwd: "/",
    env: process.env,
    onLine: (line) => lines.push(line) > 0,
  });
  assert.deepEqual(lines, ["a", "b"]);
  assert.deepEqual(result, { exitCode: 4, stderr: "problem", stopped: false, aborted: false });
});
