import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readFile, stat } from "node:fs/promises";
import { test } from "node:test";
import { createBashTool, type BashDetails } from "../../src/tools/bash.js";
import { waitUntil } from "@knightcode/testkit";
import { assertGone, killAfter } from "@knightcode/system/test/tools/processes";
import { rejectsWith, tempDir, textOf } from "./support.js";

const firstNumber = (text: string): number => Number(/\d+/.exec(text)![0]);

test("runs in the cwd with the thread's env and returns stdout and stderr together", async (t) => {
  const dir = await tempDir(t);
  const bash = createBashTool({ cwd: dir, env: { ...process.env, KC_TEST_VALUE: "from-env" } });
  const result = await bash.execute("c", { command: 'pwd; echo "$KC_TEST_VALUE"; echo oops >&2; echo done' });
  assert.equal(textOf(result), `${dir}\nfrom-env\noops\ndone`);
  assert.deepEqual(result.details, { exitCode: 0 });
});

test("stdin is /dev/null and an empty output says so", async (t) => {
  const dir = await tempDir(t);
  const bash = createBashTool({ cwd: dir });
  assert.equal(textOf(await bash.execute("c", { command: "readlink /proc/self/fd/0" })), "/dev/null");
  assert.equal(textOf(await bash.execute("c", { command: "cat" })), "(no output)");
});

test("a non-zero exit fails with the output and the exit code", async (t) => {
  const dir = await tempDir(t);
  const error = await rejectsWith(
    createBashTool({ cwd: dir }).execute("c", { command: "echo partial; exit 3" }),
    "commandFailed",
    /^partial\n\n\[Command exited with code 3\.\]$/,
  );
  assert.deepEqual(error.details, { exitCode: 3 });
  await rejectsWith(createBashTool({ cwd: dir }).execute("c", { command: "kill -KILL $$" }), "commandFailed", /killed by signal SIGKILL/);
  await rejectsWith(createBashTool({ cwd: dir }).execute("c", { command: "if then" }), "commandFailed", /syntax error[\s\S]*exited with code 2/);
  await rejectsWith(
    createBashTool({ cwd: dir }).execute("c", { command: "no-such-command-kc" }),
    "commandFailed",
    /no-such-command-kc: command not found[\s\S]*code 127/,
  );
});

test("a timeout kills the whole process group, background children included", async (t) => {
  const dir = await tempDir(t);
  const error = await rejectsWith(
    createBashTool({ cwd: dir }).execute("c", { command: "sleep 100 & echo $!; sleep 100", timeout: 0.5 }),
    "timedOut",
    /\[Command timed out after 0\.5 s and was killed\.\]$/,
  );
  assert.equal((error.details as BashDetails | undefined)?.timedOut, true);
  await assertGone(firstNumber(error.message));
});

test("children that ignore SIGTERM get SIGKILL after the grace period", async (t) => {
  const dir = await tempDir(t);
  const bash = createBashTool({ cwd: dir }, { killGraceMs: 200 });
  const error = await rejectsWith(bash.execute("c", { command: "trap '' TERM; sleep 100 & echo $!; wait", timeout: 0.3 }), "timedOut");
  await assertGone(firstNumber(error.message));
});

test("aborting the signal kills the group and reports the output so far", async (t) => {
  const dir = await tempDir(t);
  const controller = new AbortController();
  let grandchild: number | undefined;
  const call = createBashTool({ cwd: dir }, { updateIntervalMs: 10 }).execute(
    "c",
    { command: "sleep 100 & echo $!; sleep 100" },
    controller.signal,
    (update) => {
      grandchild ??= firstNumber(textOf(update));
      controller.abort();
    },
  );
  const error = await rejectsWith(call, "aborted", /\[Command aborted and killed\.\]$/);
  assert.deepEqual(error.details, { exitCode: null, signal: "SIGTERM", aborted: true });
  assert.equal(grandchild, firstNumber(error.message));
  await assertGone(grandchild!);
});

test("output streams through throttled updates before the command ends", async (t) => {
  const dir = await tempDir(t);
  const updates: string[] = [];
  // The command ends only once an update has shown its first line: that update came before the end, however slow the machine.
  const gate = join(dir, "first-seen");
  const result = await createBashTool({ cwd: dir }, { updateIntervalMs: 20 }).execute(
    "c",
    { command: `echo first; while [ ! -e ${gate} ]; do sleep 0.01; done; echo second` },
    undefined,
    (update) => {
      assert.equal((update.details as BashDetails).exitCode, null);
      updates.push(textOf(update));
      if (textOf(update).includes("first")) writeFileSync(gate, "");
    },
  );
  assert.equal(textOf(result), "first\nsecond");
  assert.equal(updates[0], "first\n");
  assert.ok(updates.length <= 3, `${updates.length} updates`);
});

test("50 MB of output keeps the head and the tail and saves the whole to a file", async (t) => {
  const dir = await tempDir(t);
  const bash = createBashTool({ cwd: dir }, { spillDir: dir });
  const result = await bash.execute("c", { command: "yes 0123456789 | head -c 50000000" });
  const text = textOf(result);
  const details = result.details;
  assert.equal(details.truncated, true);
  assert.ok(details.fullOutputPath?.startsWith(dir), details.fullOutputPath);
  assert.equal((await stat(details.fullOutputPath!)).size, 50_000_000);
  assert.ok(Buffer.byteLength(text) < 51 * 1024 + 200, `${Buffer.byteLength(text)} bytes`);
  assert.ok(text.startsWith("0123456789\n0123456789\n"));
  assert.match(
    text,
    new RegExp(`\\n\\[\\.\\.\\. 47\\.\\d MiB of output omitted here; the full output is in ${details.fullOutputPath} \\.\\.\\.\\]\\n0123456789\\n`),
  );
  // 50,000,000 = 4,545,454 lines of 11 bytes and 6 more: the true end of the output.
  assert.ok(text.endsWith("0123456789\n012345"));
  const whole = await readFile(details.fullOutputPath!, "utf8");
  assert.ok(whole.endsWith("0123456789\n012345"));
});

test("a missing working directory is a clear error", async (t) => {
  const dir = await tempDir(t);
  await rejectsWith(createBashTool({ cwd: `${dir}/gone` }).execute("c", { command: "true" }), "notFound", /does not exist/);
});

test("a background process that keeps the pipes open does not hold the call", async (t) => {
  const dir = await tempDir(t);
  const result = await createBashTool({ cwd: dir }).execute("c", { command: "sleep 30 & echo $!; echo started" });
  const pid = firstNumber(textOf(result));
  t.after(() => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  });
  assert.match(textOf(result), /\nstarted$/);
});

/** Waits for a pid a command wrote to `file`. */
function pidFrom(file: string): Promise<number> {
  return waitUntil(`a pid in ${file}`, () => {
    const pid = existsSync(file) ? Number(readFileSync(file, "utf8").trim()) : NaN;
    return Number.isSafeInteger(pid) && pid > 1 ? pid : undefined;
  });
}

test("a shell killed from outside fails the call naming the signal, and its orphaned child is stopped", async (t) => {
  const dir = await tempDir(t);
  // The shell waits on a child that holds the pipes: killed, it would leave the child running unseen.
  const call = createBashTool({ cwd: dir }).execute("c", { command: "echo $$ > shell.pid; sleep 1000 & echo $! > child.pid; wait" });
  const child = await pidFrom(join(dir, "child.pid"));
  killAfter(t, child);
  process.kill(await pidFrom(join(dir, "shell.pid")), "SIGKILL");
  const error = await rejectsWith(
    call,
    "commandFailed",
    /\[Command killed by signal SIGKILL before it finished \(SIGKILL usually comes from another process, or from the system when memory runs out\)\.\]$/,
  );
  assert.deepEqual(error.details, { exitCode: null, signal: "SIGKILL" });
  await assertGone(child);
});

test("SIGTERM from outside is named with where such a signal comes from", async (t) => {
  const dir = await tempDir(t);
  const call = createBashTool({ cwd: dir }).execute("c", { command: "echo $$ > cmd.pid; sleep 1000" });
  const pid = await pidFrom(join(dir, "cmd.pid"));
  killAfter(t, pid);
  process.kill(pid, "SIGTERM");
  await rejectsWith(
    call,
    "commandFailed",
    /\[Command killed by signal SIGTERM before it finished \(SIGTERM is a request to stop, usually from another process\)\.\]$/,
  );
});

test("an exit status of 128 + N is read as signal N, as a shell reports a child it lost", async (t) => {
  const dir = await tempDir(t);
  const bash = createBashTool({ cwd: dir });
  await rejectsWith(
    bash.execute("c", { command: "sh -c 'kill -KILL $$'; exit $?" }),
    "commandFailed",
    /\[Command exited with code 137: a process it ran was probably killed by signal SIGKILL \(128 \+ 9\); SIGKILL usually comes/,
  );
  await rejectsWith(
    bash.execute("c", { command: "exit 139" }),
    "commandFailed",
    /\[Command exited with code 139: a process it ran was probably killed by signal SIGSEGV \(128 \+ 11\)\.\]$/,
  );
  await rejectsWith(bash.execute("c", { command: "exit 128" }), "commandFailed", /\[Command exited with code 128\.\]$/);
  await rejectsWith(bash.execute("c", { command: "exit 255" }), "commandFailed", /\[Command exited with code 255\.\]$/);
});
