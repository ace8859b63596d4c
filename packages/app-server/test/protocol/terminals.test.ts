import assert from "node:assert/strict";
import { existsSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test, type TestContext } from "node:test";
import type { AppServerError, ClientRequestParams } from "@knightcode/app-server-protocol";
import { loadPty } from "@knightcode/system/process/pty-launch";
import { sandboxSupport } from "@knightcode/system/process/sandbox/support";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, waitUntil, type TestClient, type TestServer } from "../support/harness.js";
import { hostProcesses, isAlive } from "../support/processes.js";

/**
 * command/exec through the real binary: real shells, on pipes and on a
 * terminal, in the thread's sandbox where bubblewrap runs here. Processes
 * are found from outside by their command line (a sandbox's pids are its
 * own), with durations no other test uses.
 */

const KEY = "sk-test-terminal-93f1";
const support = await sandboxSupport();
const noSandbox = support.available ? false : `the sandbox cannot run here: ${support.reason}`;
/** node-pty is optional (built at install): without it, terminals are refused (tested below) and the rest runs on pipes only. */
const noPty = ((): string | false => {
  try {
    loadPty();
    return false;
  } catch (error) {
    return `node-pty cannot be loaded here: ${(error as Error).message.split("\n")[0]}`;
  }
})();
const TTYS = noPty ? [false] : [false, true];

let model: ScriptedModelServer;
before(async () => {
  model = await ScriptedModelServer.start();
});
after(() => model.close());

async function serverWith(t: TestContext, options: { env?: Record<string, string>; settings?: object } = {}): Promise<TestServer> {
  const server = await startServer({ model, env: { KC_VAULT_API_KEY: KEY, KNIGHTCODE_THREAD_IDLE_MS: "300", ...options.env } });
  t.after(() => server.cleanup());
  if (options.settings !== undefined) writeFileSync(join(server.agentDir, "settings.json"), JSON.stringify(options.settings));
  return server;
}

async function threadIn(server: TestServer, files: Record<string, string> = {}): Promise<{ threadId: string; cwd: string }> {
  const cwd = server.project(files);
  const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
  return { threadId: thread.id, cwd };
}

type Exec = Omit<ClientRequestParams<"command/exec">, "threadId">;

async function exec(client: TestClient, threadId: string, params: Exec): Promise<string> {
  return (await client.request("command/exec", { threadId, ...params })).processId;
}

/** Everything the process wrote on `stream` so far, its deltas joined as bytes. */
function output(client: TestClient, processId: string, stream?: "stdout" | "stderr" | "pty"): Buffer {
  const deltas = client.notificationsOf("command/exec/outputDelta").filter((p) => p.processId === processId && (stream === undefined || p.stream === stream));
  return Buffer.concat(deltas.map((p) => Buffer.from(p.data, "base64")));
}

const waitForOutput = (client: TestClient, processId: string, pattern: RegExp) =>
  waitUntil(`output matching ${pattern}`, () => pattern.test(output(client, processId).toString("utf8")));

const exited = (client: TestClient, processId: string) => client.waitForNotification("command/exec/exited", (p) => p.processId === processId);

const write = (client: TestClient, threadId: string, processId: string, text: string, closeStdin?: boolean) =>
  client.request("command/exec/write", { threadId, processId, data: Buffer.from(text).toString("base64"), ...(closeStdin ? { closeStdin } : {}) });

async function refused(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<AppServerError> {
  const error = (await promise.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  )) as AppServerError;
  assert.equal(error.code, code, error.message);
  assert.match(error.message, pattern);
  return error;
}

/** A `sleep` of a duration nobody else uses, and how to find it. */
function uniqueSleep(): { command: string; pids: () => number[] } {
  const seconds = 800_000 + Math.floor(Math.random() * 190_000);
  return { command: `sleep ${seconds}`, pids: () => hostProcesses(`sleep ${seconds}`) };
}

describe("command/exec without a terminal", () => {
  test("stdout and stderr stream apart, stdin is written and closed, and the exit code comes last", async (t) => {
    const server = await serverWith(t);
    const { threadId, cwd } = await threadIn(server, { "sub/file.txt": "x" });
    const before = server.main.notifications.length;
    const id = await exec(server.main, threadId, { command: "printf out1; printf err1 >&2; read line; echo got:$line; pwd; exit 3", cwd: "sub" });
    await write(server.main, threadId, id, "hello\n", true);
    const end = await exited(server.main, id);
    assert.deepEqual(end, { threadId, processId: id, exitCode: 3, signal: null, truncated: false });
    assert.equal(output(server.main, id, "stdout").toString(), `out1got:hello\n${join(cwd, "sub")}\n`);
    assert.equal(output(server.main, id, "stderr").toString(), "err1");
    const first = server.main.notifications.findIndex((n, i) => i >= before && n.method.startsWith("command/exec/"));
    const deltas = server.main.notifications.slice(first).filter((n) => n.method.startsWith("command/exec/"));
    assert.equal(deltas.at(-1)?.method, "command/exec/exited", "exited comes after every delta");
    await refused(write(server.main, threadId, id, "late"), "invalidParams", /no command\/exec process .* \(unknown, or it has exited\)/);
    assert.deepEqual(await server.main.request("command/exec/list", { threadId }), { processes: [] });
    assert.equal((await server.close()).code, 0);
  });

  test("the child's environment has no provider key, as the bash tool's has none", async (t) => {
    const server = await serverWith(t);
    const { threadId } = await threadIn(server);
    const id = await exec(server.main, threadId, { command: 'echo "key=[$KC_VAULT_API_KEY]"' });
    await exited(server.main, id);
    assert.equal(output(server.main, id).toString(), "key=[]\n");
  });
});

describe("command/exec on a terminal", () => {
  test("reads its stdin, keeps multi-byte characters whole, and honours a resize", { skip: noPty }, async (t) => {
    const server = await serverWith(t);
    const { threadId } = await threadIn(server);
    const script = [
      "stty size",
      "IFS= read -r line",
      'echo "got:$line"',
      "printf 'é%.0s' $(seq 3000); echo",
      "trap 'stty size; exit 7' WINCH",
      "echo ready",
      "while :; do sleep 0.05; done",
    ].join("; ");
    const id = await exec(server.main, threadId, { command: script, tty: true, cols: 100, rows: 30 });
    await waitForOutput(server.main, id, /30 100\r\n/);
    await write(server.main, threadId, id, "héllo wörld\r");
    await waitForOutput(server.main, id, /ready/);
    const listed = await server.main.request("command/exec/list", { threadId });
    assert.deepEqual(
      listed.processes.map((p) => [p.processId, p.tty, p.command]),
      [[id, true, script]],
    );
    await server.main.request("command/exec/resize", { threadId, processId: id, cols: 120, rows: 40 });
    const end = await exited(server.main, id);
    assert.deepEqual([end.exitCode, end.signal, end.truncated], [7, null, false]);
    const text = output(server.main, id, "pty").toString("utf8");
    assert.match(text, /got:héllo wörld\r\n/);
    assert.ok(text.includes(`${"é".repeat(3000)}\r\n`), "3000 é arrive whole, however the deltas cut them");
    assert.match(text, /ready\r\n[\s\S]*40 120\r\n/);
    assert.deepEqual(output(server.main, id, "stdout").length + output(server.main, id, "stderr").length, 0, "a terminal has one stream");
  });

  test("where node-pty cannot be loaded, tty answers toolMissing and commands without it still run", async (t) => {
    const server = await serverWith(t, { env: { KNIGHTCODE_PTY: "off" } });
    const { threadId } = await threadIn(server);
    const error = await refused(exec(server.main, threadId, { command: "true", tty: true }), "toolMissing", /tty: true needs node-pty/);
    assert.equal(error.data?.tool, "node-pty");
    const id = await exec(server.main, threadId, { command: "echo plain" });
    await exited(server.main, id);
    assert.equal(output(server.main, id).toString(), "plain\n");
  });
});

describe("a command's processes belong to it and to its thread", () => {
  test("terminate stops the command and the sleep it started", async (t) => {
    const server = await serverWith(t);
    const { threadId } = await threadIn(server);
    const sleep = uniqueSleep();
    for (const tty of TTYS) {
      const id = await exec(server.main, threadId, { command: `${sleep.command} & echo started; wait`, tty });
      await waitForOutput(server.main, id, /started/);
      const [pid] = await waitUntil("the sleep running", () => (sleep.pids().length === 1 ? sleep.pids() : undefined));
      await server.main.request("command/exec/terminate", { threadId, processId: id });
      const end = await exited(server.main, id);
      assert.equal(end.exitCode, null, `tty ${tty}: ended by a signal`);
      assert.ok(end.signal !== null);
      await waitUntil(`tty ${tty}: the sleep (pid ${pid}) gone`, () => !isAlive(pid!));
      await refused(server.main.request("command/exec/terminate", { threadId, processId: id }), "invalidParams", /has exited/);
    }
  });

  test("unloading the thread, archiving it, or the server's shutdown ends its commands with nothing left", async (t) => {
    const server = await serverWith(t);
    for (const leave of ["unload", "archive"] as const) {
      const { threadId } = await threadIn(server);
      const [piped, onTty] = [uniqueSleep(), uniqueSleep()];
      const ids = [
        await exec(server.main, threadId, { command: `${piped.command}; true` }),
        await exec(server.main, threadId, { command: `${onTty.command}; true`, tty: TTYS.at(-1)! }),
      ];
      const pids = await waitUntil(`${leave}: both running`, () => {
        const found = [...piped.pids(), ...onTty.pids()];
        return found.length === 2 ? found : undefined;
      });
      const mark = server.main.notifications.length;
      if (leave === "unload") await server.main.request("thread/unsubscribe", { threadId });
      else await server.main.request("thread/archive", { threadId });
      await server.main.waitForNotification("thread/status/changed", (p) => p.threadId === threadId && p.status.type === "notLoaded", { since: mark });
      await waitUntil(`${leave}: no process left`, () => pids.every((pid) => !isAlive(pid)));
      await refused(server.main.request("command/exec/terminate", { threadId, processId: ids[0]! }), "threadNotFound", /not loaded/);
    }
    const { threadId } = await threadIn(server);
    const sleep = uniqueSleep();
    await exec(server.main, threadId, { command: `${sleep.command}; true`, tty: TTYS.at(-1)! });
    const [pid] = await waitUntil("running before the shutdown", () => (sleep.pids().length === 1 ? sleep.pids() : undefined));
    assert.equal((await server.close()).code, 0);
    assert.equal(isAlive(pid!), false, "the server's shutdown ended it");
  });
});

describe("limits", () => {
  test("output past terminals.maxOutputBytes is cut at the cap and the command stopped", async (t) => {
    const server = await serverWith(t, { settings: { terminals: { maxOutputBytes: 4096 } } });
    const { threadId } = await threadIn(server);
    for (const tty of TTYS) {
      const id = await exec(server.main, threadId, { command: "yes 0123456789", tty });
      const end = await exited(server.main, id);
      assert.equal(end.truncated, true, `tty ${tty}`);
      assert.equal(output(server.main, id).length, 4096, `tty ${tty}: exactly the cap`);
    }
  });

  test("terminals.maxPerThread bounds the commands running at once in a thread", async (t) => {
    const server = await serverWith(t, { settings: { terminals: { maxPerThread: 2 } } });
    const { threadId } = await threadIn(server);
    const first = await exec(server.main, threadId, { command: "sleep 600" });
    await exec(server.main, threadId, { command: "sleep 600" });
    const error = await refused(exec(server.main, threadId, { command: "true" }), "invalidParams", /runs 2 commands already \(terminals\.maxPerThread\)/);
    assert.equal(error.data?.maxPerThread, 2);
    const other = await threadIn(server);
    await exited(server.main, await exec(server.main, other.threadId, { command: "true" }));
    await server.main.request("command/exec/terminate", { threadId, processId: first });
    await exited(server.main, first);
    await exited(server.main, await exec(server.main, threadId, { command: "true" }));
  });
});

describe("bad inputs", () => {
  test("unknown processes, a cwd outside the folder, resizing without a terminal, sizes without one", async (t) => {
    const server = await serverWith(t);
    const { threadId, cwd } = await threadIn(server);
    symlinkSync(server.home, join(cwd, "out"));
    const processId = "proc_nope";
    const unknown = /no command\/exec process proc_nope/;
    await refused(server.main.request("command/exec/terminate", { threadId, processId }), "invalidParams", unknown);
    await refused(server.main.request("command/exec/resize", { threadId, processId, cols: 80, rows: 24 }), "invalidParams", unknown);
    await refused(server.main.request("command/exec/write", { threadId, processId, data: "" }), "invalidParams", unknown);
    await refused(exec(server.main, threadId, { command: "pwd", cwd: ".." }), "invalidParams", /outside the thread's folder/);
    await refused(exec(server.main, threadId, { command: "pwd", cwd: "out" }), "invalidParams", /outside the thread's folder/);
    await refused(exec(server.main, threadId, { command: "pwd", cwd: "missing" }), "invalidParams", /not a folder/);
    await refused(exec(server.main, threadId, { command: "pwd", cols: 100 }), "invalidParams", /need tty: true/);
    await refused(server.main.request("command/exec", { threadId: "no-such-thread", command: "true" }), "threadNotFound", /not loaded/);
    const id = await exec(server.main, threadId, { command: "sleep 600" });
    await refused(server.main.request("command/exec/resize", { threadId, processId: id, cols: 100, rows: 30 }), "invalidParams", /no terminal/);
    await server.main.request("command/exec/terminate", { threadId, processId: id });
    await exited(server.main, id);
  });
});

describe("the sandbox", () => {
  test("a command, on a terminal or not, writes in the thread's folder and nowhere else", { skip: noSandbox }, async (t) => {
    const server = await serverWith(t);
    const { threadId, cwd } = await threadIn(server);
    const outside = join(server.home, "outside.txt");
    for (const tty of TTYS) {
      const id = await exec(server.main, threadId, { command: `echo in > inside-${tty}.txt && echo out > ${outside}`, tty });
      const end = await exited(server.main, id);
      assert.notEqual(end.exitCode, 0, `tty ${tty}`);
      assert.match(output(server.main, id).toString(), /Read-only file system/, `tty ${tty}`);
      assert.equal(output(server.main, id).includes(0), false, `tty ${tty}: the sandbox's lifeline on a terminal reaches no client`);
      assert.ok(existsSync(join(cwd, `inside-${tty}.txt`)), `tty ${tty}`);
      assert.equal(existsSync(outside), false, `tty ${tty}`);
    }
  });
});
