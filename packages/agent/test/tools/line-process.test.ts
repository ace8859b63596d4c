import assert from "node:assert/strict";
import { test } from "node:test";
import { runLineProcess } from "../../src/tools/line-process.js";
import { rejectsWith } from "./support.js";

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

test("an abort kills the process and rejects with aborted", async () => {
  const controller = new AbortController();
  const call = runLineProcess({ file: "sleep", args: ["100"], cwd: "/", env: process.env, signal: controller.signal, onLine: () => true });
  setTimeout(() => controller.abort(), 50);
  await rejectsWith(call, "aborted");
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
  assert.deepEqual(result, { exitCode: 4, stderr: "problem", stopped: false });
});
