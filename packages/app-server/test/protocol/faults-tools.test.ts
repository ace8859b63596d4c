import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Item } from "@knightcode/app-server-protocol";
import { ScriptedModelServer, type RecordedRequest } from "@knightcode/testkit";
import { startServer, waitUntil, type ReceivedNotification, type TestServer } from "../support/harness.js";

/*
 * Faults: every started turn ends, and the thread says why. Here the faults
 * are real: a tool's child process killed by a signal from outside, and a
 * model stream cut or stalled in the middle of a reply.
 */

/** Fast retries. */
const RETRY = { baseDelayMs: 1, maxRetryDelayMs: 5, maxRetries: 2 };

let model: ScriptedModelServer;
let home: string;
let server: TestServer;

/** The global settings of the threads started from now on (each thread reads them as it loads). */
function writeSettings(retry: Record<string, number>): void {
  writeFileSync(join(home, ".knightcode", "agent", "settings.json"), JSON.stringify({ retry: { provider: retry } }));
}

before(async () => {
  model = await ScriptedModelServer.start();
  home = mkdtempSync(join(tmpdir(), "kc-faults-tools-"));
  mkdirSync(join(home, ".knightcode", "agent"), { recursive: true });
  writeSettings(RETRY);
  server = await startServer({ model, home });
});
after(async () => {
  await server.close();
  await model.close();
  rmSync(home, { recursive: true, force: true });
});

const TURN_METHODS = new Set([
  "turn/started",
  "item/started",
  "item/completed",
  "item/removed",
  "item/agentMessage/delta",
  "turn/retrying",
  "turn/completed",
  "thread/turn/completed",
]);

/** The turn and item notifications of one turn, in the order the client got them. */
function turnNotifications(since: number, threadId: string, turnId: string): ReceivedNotification[] {
  return server.main.notifications.slice(since).filter((n) => {
    if (!TURN_METHODS.has(n.method)) return false;
    const params = n.params as { threadId?: string; turnId?: string; turn?: { id: string } };
    return params.threadId === threadId && (params.turnId === turnId || params.turn?.id === turnId);
  });
}

/** One notification as a short line; a run of deltas is one `delta*`. */
function shapes(notifications: ReceivedNotification[]): string[] {
  const out: string[] = [];
  for (const { method, params } of notifications) {
    const p = params as { item?: Item; turn?: { status: string }; error?: { kind: string } };
    let line: string;
    if (method === "item/started" || method === "item/completed")
      line = `${method} ${p.item!.type}${"status" in p.item! && p.item.status ? ` ${p.item.status}` : ""}`;
    else if (method === "turn/completed" || method === "thread/turn/completed") line = `${method} ${p.turn!.status}`;
    else if (method === "turn/retrying") line = `${method} ${p.error!.kind}`;
    else if (method === "item/agentMessage/delta") line = "delta*";
    else line = method;
    if (line !== "delta*" || out[out.length - 1] !== "delta*") out.push(line);
  }
  return out;
}

/** A turn that must simply complete. */
async function plainTurn(threadId: string, reply: string): Promise<void> {
  model.enqueue({ text: reply });
  const { turnId, mark } = await startTurn(threadId, "hello");
  await endOfTurn(threadId, turnId, mark);
}

async function newThread(): Promise<{ threadId: string; cwd: string }> {
  const cwd = server.project();
  // fullAccess: the bash calls run without an approval request.
  const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
  return { threadId: thread.id, cwd };
}

async function startTurn(threadId: string, text: string): Promise<{ turnId: string; mark: number }> {
  const mark = server.main.notifications.length;
  const answer = await server.main.request("turn/start", { threadId, text });
  assert.equal(answer.status, "started");
  const { turn } = await server.main.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  return { turnId: turn.id, mark };
}

/**
 * Waits for the turn's end and for the thread to be idle again, then one
 * round trip more: whatever the turn was going to say has been said.
 */
async function endOfTurn(threadId: string, turnId: string, mark: number): Promise<ReceivedNotification[]> {
  await server.main.waitForNotification("turn/completed", (p) => p.turn.id === turnId, { since: mark, timeoutMs: 30_000 });
  await server.main.waitForNotification("thread/turn/completed", (p) => p.turn.id === turnId, { since: mark });
  await server.main.waitForNotification("thread/status/changed", (p) => p.threadId === threadId && p.status.type === "idle", { since: mark });
  await server.main.request("server/diagnostics", {});
  const seen = turnNotifications(mark, threadId, turnId);
  assert.equal(seen.filter((n) => n.method === "turn/completed").length, 1, "exactly one turn/completed");
  assert.equal(seen.filter((n) => n.method === "thread/turn/completed").length, 1, "exactly one thread/turn/completed");
  return seen;
}

/** What a new server process reads of the thread's saved turns. */
async function readAfterRestart(threadId: string) {
  const reader = await startServer({ model, home });
  try {
    return (await reader.main.request("thread/read", { threadId })).turns;
  } finally {
    await reader.close();
  }
}

function itemsOf(seen: ReceivedNotification[], method: "item/started" | "item/completed" | "item/removed") {
  return seen.filter((n) => n.method === method).map((n) => n.params as { item: Item; itemId: string });
}

// ---------------------------------------------------------------------------
// A tool child killed by a signal

/** A process's state letter and process group, from /proc; undefined once it is gone. */
function procStat(pid: number | string): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // pid (comm) state ppid pgrp ...: comm may hold spaces, so read after its closing parenthesis.
  const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: state!, pgrp: Number(pgrp) };
}

/** Live members of a process group (a zombie is dead: it only waits to be reaped). */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(name);
    if (stat?.pgrp === pgid && stat.state !== "Z" && stat.state !== "X") members.push(Number(name));
  }
  return members;
}

function readPid(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, "utf8").trim());
  return Number.isSafeInteger(pid) && pid > 1 ? pid : undefined;
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** The tool result the model's request carries for `callId`, as text. */
function toolResultSent(request: RecordedRequest, callId: string): string | undefined {
  const message = (request.body.messages as { role: string; tool_call_id?: string; content: unknown }[]).find(
    (m) => m.role === "tool" && m.tool_call_id === callId,
  );
  if (message === undefined) return undefined;
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

interface KilledCall {
  /** The bash command; it writes a pid to `cmd.pid` in the project, then blocks. */
  command: string;
  /** How many live processes the group has once the command blocks. */
  members: number;
  /** Sends the fault, given the pid in the file. */
  kill: (pid: number) => void;
  /** What the failed call's output must say. */
  says: RegExp;
}

/**
 * One turn: the model calls bash, the command blocks, the test kills it from
 * outside, the model answers the failure and the turn completes. Checks the
 * notifications, the tool result the model got, that nothing of the command
 * is left, and what a new process reads.
 */
async function killedCallTurn(fault: KilledCall): Promise<void> {
  const { threadId, cwd } = await newThread();
  const callId = `call_${Math.random().toString(36).slice(2, 10)}`;
  const pidFile = join(cwd, "cmd.pid");
  model.enqueue({ toolCalls: [{ id: callId, name: "bash", arguments: { command: fault.command } }] }, { text: "The command was stopped from outside." });
  const firstRequest = model.requests.length;
  const { turnId, mark } = await startTurn(threadId, "run the command");
  // A server's first turn loads the model engine: slow on a busy machine.
  const pid = await waitUntil("the command's pid file", () => readPid(pidFile), 30_000);
  // The shell leads the group the tool made for the call; every process of the command is in it.
  const pgid = await waitUntil(`the process group of ${pid}`, () => procStat(pid)?.pgrp);
  await waitUntil(`${fault.members} processes in the command's group`, () => groupMembers(pgid).length === fault.members);
  fault.kill(pid);
  const seen = await endOfTurn(threadId, turnId, mark);

  assert.deepEqual(shapes(seen), [
    "turn/started",
    "item/started userMessage",
    "item/completed userMessage",
    "item/started toolCall inProgress",
    "item/completed toolCall failed",
    "item/started agentMessage",
    "delta*",
    "item/completed agentMessage",
    "turn/completed completed",
    "thread/turn/completed completed",
  ]);
  const call = itemsOf(seen, "item/completed").find((p) => p.item.id === callId)!.item;
  assert.ok(call.type === "toolCall" && "status" in call, "an inline toolCall item");
  assert.equal(call.status, "failed");
  assert.match(call.output ?? "", fault.says);

  await waitUntil("the model's request after the call", () => model.requests.length >= firstRequest + 2);
  assert.match(toolResultSent(model.requests[firstRequest + 1]!, callId) ?? "", fault.says);
  assert.equal(model.requests.length, firstRequest + 2, "no retry, no other request");

  await waitUntil(`no process left in group ${pgid}`, () => groupMembers(pgid).length === 0).catch((error: Error) => {
    for (const member of groupMembers(pgid)) killQuietly(member, "SIGKILL");
    throw error;
  });

  const [saved] = await readAfterRestart(threadId);
  assert.equal(saved!.id, turnId);
  assert.equal(saved!.status, "completed");
  // A new process reads what the client saw: the failed call with its output, item for item.
  assert.deepEqual(
    saved!.items,
    itemsOf(seen, "item/completed").map((p) => p.item),
  );
}

describe("spec: Threads and turns (a tool's process killed by a signal)", () => {
  test("SIGKILL to the process the command runs: the call fails saying so, the model hears it, the turn completes", async () => {
    await killedCallTurn({
      // bash execs its last command: the pid it wrote is the sleep's.
      command: "echo $$ > cmd.pid; sleep 1000",
      members: 1,
      kill: (pid) => process.kill(pid, "SIGKILL"),
      says: /killed by signal SIGKILL/,
    });
  });

  test("SIGKILL to the whole process group: shell and child die, the call fails saying so, the turn completes", async () => {
    await killedCallTurn({
      command: "echo $$ > cmd.pid; sleep 1000; echo never",
      members: 2,
      kill: (pgid) => process.kill(-pgid, "SIGKILL"),
      says: /killed by signal SIGKILL/,
    });
  });

  test("SIGKILL to the shell alone: its orphaned child is stopped too, nothing of the command is left", async () => {
    await killedCallTurn({
      command: "echo $$ > cmd.pid; sleep 1000; echo never",
      members: 2,
      kill: (pid) => process.kill(pid, "SIGKILL"),
      says: /killed by signal SIGKILL/,
    });
  });

  test("SIGKILL to a child the shell waits on: the exit status 137 is read as SIGKILL", async () => {
    await killedCallTurn({
      // The subshell writes its own pid and becomes the sleep; the outer shell goes on with its status.
      command: "echo $$ > shell.pid; (echo $BASHPID > cmd.pid; exec sleep 1000) && echo never",
      members: 2,
      kill: (pid) => process.kill(pid, "SIGKILL"),
      says: /exited with code 137[\s\S]*SIGKILL/,
    });
  });

  test("SIGTERM to the process the command runs: the call fails saying so, the turn completes", async () => {
    await killedCallTurn({
      command: "echo $$ > cmd.pid; sleep 1000",
      members: 1,
      kill: (pid) => process.kill(pid, "SIGTERM"),
      says: /killed by signal SIGTERM/,
    });
  });
});

// ---------------------------------------------------------------------------
// A model stream cut mid-delta

/** The text of the assistant messages a model request carries. */
function assistantTexts(request: RecordedRequest): string[] {
  return (request.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === "assistant")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")));
}

function deltasOf(seen: ReceivedNotification[], itemId: string): string {
  return seen
    .filter((n) => n.method === "item/agentMessage/delta" && (n.params as { itemId: string }).itemId === itemId)
    .map((n) => (n.params as { delta: string }).delta)
    .join("");
}

describe("spec: Threads and turns (a model stream cut or stalled mid-reply)", () => {
  test("a stream cut once: the torn reply is withdrawn, the retry's reply is the answer, live and after a restart", async () => {
    const { threadId } = await newThread();
    model.enqueue({ text: ["The answer ", "is cut", " off here"], breakAfter: 3 }, { text: ["The whole ", "answer."] });
    const firstRequest = model.requests.length;
    const { turnId, mark } = await startTurn(threadId, "answer me");
    const seen = await endOfTurn(threadId, turnId, mark);

    assert.deepEqual(shapes(seen), [
      "turn/started",
      "item/started userMessage",
      "item/completed userMessage",
      "item/started agentMessage",
      "delta*",
      "item/removed",
      "turn/retrying network",
      "item/started agentMessage",
      "delta*",
      "item/completed agentMessage",
      "turn/completed completed",
      "thread/turn/completed completed",
    ]);
    const [torn, retried] = itemsOf(seen, "item/started")
      .filter((p) => p.item.type === "agentMessage")
      .map((p) => p.item);
    assert.equal(deltasOf(seen, torn!.id), "The answer is cut");
    assert.equal(itemsOf(seen, "item/removed")[0]!.itemId, torn!.id);
    assert.notEqual(retried!.id, torn!.id);
    const retry = seen.find((n) => n.method === "turn/retrying")!.params as { attempt: number; maxAttempts: number; error: { message: string } };
    assert.equal(retry.attempt, 1);
    assert.equal(retry.maxAttempts, RETRY.maxRetries);
    const completed = itemsOf(seen, "item/completed").map((p) => p.item);
    assert.equal(completed[1]!.id, retried!.id);
    assert.deepEqual(
      completed.map((i) => [i.type, "text" in i ? i.text : undefined]),
      [
        ["userMessage", "answer me"],
        ["agentMessage", "The whole answer."],
      ],
    );
    // The retry starts again from the input: the torn text never reaches the model.
    assert.equal(model.requests.length, firstRequest + 2);
    assert.deepEqual(
      assistantTexts(model.requests[firstRequest + 1]!).filter((t) => t.includes("cut")),
      [],
    );

    const [saved] = await readAfterRestart(threadId);
    assert.equal(saved!.status, "completed");
    assert.equal(saved!.error, undefined);
    // History and the live view agree item for item: ids, indexes, texts and times.
    assert.deepEqual(saved!.items, completed);
  });

  test("a stream cut on every attempt: the turn fails once, as a network error the user can act on", async () => {
    const { threadId } = await newThread();
    const attempts = RETRY.maxRetries + 1;
    for (let i = 0; i < attempts; i++) model.enqueue({ text: ["Half ", "an answer", " and more"], breakAfter: 3 });
    const firstRequest = model.requests.length;
    const { turnId, mark } = await startTurn(threadId, "answer me");
    const seen = await endOfTurn(threadId, turnId, mark);

    const attempt = ["item/started agentMessage", "delta*", "item/removed"];
    assert.deepEqual(shapes(seen), [
      "turn/started",
      "item/started userMessage",
      "item/completed userMessage",
      ...attempt,
      "turn/retrying network",
      ...attempt,
      "turn/retrying network",
      ...attempt,
      "turn/completed failed",
      "thread/turn/completed failed",
    ]);
    assert.equal(model.requests.length, firstRequest + attempts);
    const ended = seen
      .filter((n) => n.method === "turn/completed" || n.method === "thread/turn/completed")
      .map((n) => (n.params as { turn: { error?: { message: string; kind: string } } }).turn);
    for (const turn of ended) {
      assert.equal(turn.error?.kind, "network");
      // Says what broke, that it was retried, and what to do.
      assert.match(turn.error!.message, /connection to the model/i);
      assert.match(turn.error!.message, new RegExp(`${attempts} attempts`));
      assert.match(turn.error!.message, /network|try again/i);
    }

    const [saved] = await readAfterRestart(threadId);
    assert.equal(saved!.status, "failed");
    assert.deepEqual(saved!.error, ended[0]!.error);
    assert.deepEqual(
      saved!.items!.map((i) => i.type),
      ["userMessage"],
      "no torn reply is saved as an answer",
    );
  });

  test("a stalled stream (open, no bytes) fails the attempt after the idle time; the retry answers", async () => {
    // The provider's code loads on the server's first model request, inside the idle window: load it before the window is short.
    await plainTurn((await newThread()).threadId, "warm");
    writeSettings({ ...RETRY, streamIdleTimeoutMs: 300 });
    const { threadId } = await newThread().finally(() => writeSettings(RETRY));
    // The first attempt stalls after a delta, the second before any byte of its body.
    model.enqueue({ text: ["Thinking about", " it"], pauseAfter: 2 }, { text: "never sent", pauseAfter: 0 }, { text: "Recovered answer." });
    const firstRequest = model.requests.length;
    const { turnId, mark } = await startTurn(threadId, "answer me");
    const seen = await endOfTurn(threadId, turnId, mark);

    assert.deepEqual(shapes(seen), [
      "turn/started",
      "item/started userMessage",
      "item/completed userMessage",
      "item/started agentMessage",
      "delta*",
      "item/removed",
      "turn/retrying network",
      "turn/retrying network",
      "item/started agentMessage",
      "delta*",
      "item/completed agentMessage",
      "turn/completed completed",
      "thread/turn/completed completed",
    ]);
    for (const retry of seen.filter((n) => n.method === "turn/retrying")) {
      assert.match((retry.params as { error: { message: string } }).error.message, /stalled: no data for 0\.3 s/);
    }
    assert.equal(model.requests.length, firstRequest + 3);
    assert.ok(model.requests[firstRequest]!.abortedAt, "the first stalled request was given up");
    assert.ok(model.requests[firstRequest + 1]!.abortedAt, "the second stalled request was given up");
    const completed = itemsOf(seen, "item/completed").map((p) => p.item);
    const [saved] = await readAfterRestart(threadId);
    assert.equal(saved!.status, "completed");
    assert.deepEqual(saved!.items, completed);
    assert.deepEqual(
      completed.map((i) => [i.type, "text" in i ? i.text : undefined]),
      [
        ["userMessage", "answer me"],
        ["agentMessage", "Recovered answer."],
      ],
    );
  });
});
