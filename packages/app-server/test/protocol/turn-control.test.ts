import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppServerError } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, waitUntil, waitUntilAsync, type TestClient } from "../support/harness.js";

let model: ScriptedModelServer;
let server: TestServer;
let cwd: string;
let gateDir: string;

/**
 * An extension whose input and before_agent_start handlers wait for a file to
 * appear when the text asks them to: it holds a start inside its hooks for as
 * long as a test needs. It marks each hold with two files beside the gate,
 * `<gate>.held` once the handler waits and `<gate>.resumed` once it goes on,
 * so a test waits for the hook itself rather than for time to pass.
 */
const HOLDING_EXTENSION = `
import { existsSync, writeFileSync } from "node:fs";
const wait = (file: string) => new Promise<void>((resolve) => {
  writeFileSync(file + ".held", "");
  const timer = setInterval(() => {
    if (!existsSync(file)) return;
    clearInterval(timer);
    writeFileSync(file + ".resumed", "");
    resolve();
  }, 5);
});
export default function (kc: any) {
  kc.on("input", async (event: any) => {
    const m = /hold-input:(\\S+)/.exec(event.text);
    if (m) await wait(m[1]);
    const handle = /hold-handle:(\\S+)/.exec(event.text);
    if (handle) {
      await wait(handle[1]);
      return { action: "handled" };
    }
  });
  kc.on("before_agent_start", async (event: any) => {
    const m = /hold-start:(\\S+)/.exec(event.prompt);
    if (m) await wait(m[1]);
  });
}
`;

let extensionDir: string;

before(async () => {
  model = await ScriptedModelServer.start();
  extensionDir = mkdtempSync(join(tmpdir(), "kc-hold-ext-"));
  writeFileSync(join(extensionDir, "hold.ts"), HOLDING_EXTENSION);
  server = await startServer({ model, args: ["-e", join(extensionDir, "hold.ts")] });
  cwd = server.project({ "a.txt": "alpha" });
  gateDir = server.project({}, "gates");
});
after(async () => {
  await server.close();
  await model.close();
  rmSync(extensionDir, { recursive: true, force: true });
});

let gateSeq = 0;
function gatePath(): string {
  return join(gateDir, `gate-${++gateSeq}`);
}

async function newThread(client: TestClient = server.main) {
  return (await client.request("thread/start", { cwd, approvalMode: "fullAccess" })).thread;
}

/** Waits until the holding extension's handler for `gate` is waiting on it, or has gone on. */
function hookReached(gate: string, mark: "held" | "resumed"): Promise<true> {
  return waitUntil(`the hook holding on ${gate} to be ${mark}`, () => existsSync(`${gate}.${mark}`) || undefined);
}

let admittedSeq = 0;
/**
 * Starts a turn once the thread admits one, and waits for it to complete.
 * Right after a turn/completed the thread may still be settling (a settlement
 * or a hook that outlived an interrupt keeps admission) and answer
 * turnInProgress: the start is tried again until the deadline.
 */
async function turnWhenAdmitted(threadId: string, text: string, reply: string): Promise<string> {
  model.enqueue({ text: reply });
  const requestId = `admitted-${++admittedSeq}`;
  const mark = server.main.notifications.length;
  await waitUntilAsync(`thread ${threadId} to admit a start`, async () => {
    const answer = await server.main.request("turn/start", { threadId, text, requestId }).catch((e: unknown) => e);
    if (answer instanceof AppServerError && answer.code === "turnInProgress") return undefined;
    if (answer instanceof Error) throw answer;
    return true;
  });
  const started = await server.main.waitForNotification("turn/started", (p) => p.threadId === threadId && p.requestId === requestId, { since: mark });
  await completedTurn(threadId, started.turn.id);
  return started.turn.id;
}

function held() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { gate, release };
}

async function startedTurn(threadId: string, since: number): Promise<string> {
  return (await server.main.waitForNotification("turn/started", (p) => p.threadId === threadId, { since })).turn.id;
}

function completedTurn(threadId: string, turnId: string) {
  return server.main.waitForNotification("turn/completed", (p) => p.threadId === threadId && p.turn.id === turnId, { timeoutMs: 15_000 });
}

describe("spec: turn/steer", () => {
  test("a steer reaches the running turn's next model request and never a later turn", async () => {
    const thread = await newThread();
    const hold = held();
    model.enqueue({ text: ["working"], pauseAfter: 1, gate: hold.gate }, { text: "steered answer" });
    const mark = server.main.notifications.length;
    const before = model.requests.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "start" });
    const turnId = await startedTurn(thread.id, mark);
    const answer = await server.main.request("turn/steer", { threadId: thread.id, text: "also check the tests", expectedTurnId: turnId });
    assert.deepEqual(answer, { status: "steered", turnId });
    const queued = await server.main.waitForNotification("turn/queue/updated", (p) => p.threadId === thread.id && p.steering.length === 1, { since: mark });
    assert.deepEqual(queued.steering, ["also check the tests"]);
    hold.release();
    const done = await completedTurn(thread.id, turnId);
    assert.equal(done.turn.status, "completed");
    assert.match(JSON.stringify(model.requests[before + 1]!.body.messages), /also check the tests/);
    const users = server.main.notificationsOf("item/completed").filter((p) => p.turnId === turnId && p.item.type === "userMessage");
    assert.deepEqual(
      users.map((p) => (p.item as { text: string }).text),
      ["start", "also check the tests"],
    );
    await server.main.waitForNotification("turn/queue/updated", (p) => p.threadId === thread.id && p.steering.length === 0, { since: mark });
  });

  test("a stale or absent expectedTurnId is turnMismatch", async () => {
    const thread = await newThread();
    const none = await server.main.request("turn/steer", { threadId: thread.id, text: "x", expectedTurnId: "nope" }).catch((e: unknown) => e);
    assert.ok(none instanceof AppServerError && none.code === "turnMismatch");
    const hold = held();
    model.enqueue({ text: ["a"], pauseAfter: 1, gate: hold.gate });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "go" });
    const turnId = await startedTurn(thread.id, mark);
    const stale = await server.main.request("turn/steer", { threadId: thread.id, text: "x", expectedTurnId: "an-older-turn" }).catch((e: unknown) => e);
    assert.ok(stale instanceof AppServerError && stale.code === "turnMismatch");
    assert.equal(stale.data?.runningTurnId, turnId);
    hold.release();
    await completedTurn(thread.id, turnId);
  });

  test("a steer still in interception when its turn ends answers invalidParams and reaches no turn", async () => {
    const thread = await newThread();
    const hold = held();
    model.enqueue({ text: ["a"], pauseAfter: 1, gate: hold.gate }, { text: "next turn" });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "go" });
    const turnId = await startedTurn(thread.id, mark);
    const gate = gatePath();
    const steer = server.main.request("turn/steer", { threadId: thread.id, text: `late hold-input:${gate}`, expectedTurnId: turnId }).catch((e: unknown) => e);
    await hookReached(gate, "held");
    hold.release();
    await completedTurn(thread.id, turnId);
    const answer = await steer;
    assert.ok(answer instanceof AppServerError && answer.code === "invalidParams", String(answer));
    assert.equal(answer.data?.reason, "turnEnded");
    writeFileSync(gate, "");
    // The steer's hook goes on only now: whatever it hands back must not reach the next turn.
    await hookReached(gate, "resumed");
    const before = model.requests.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "later" });
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id && p.turn.id !== turnId);
    assert.doesNotMatch(JSON.stringify(model.requests[before]!.body.messages), /hold-input/);
  });
});

describe("spec: turn/queue/add and turn/queue/remove", () => {
  test("queued inputs start their own turns once idle, oldest first; removed ones never start", async () => {
    const thread = await newThread();
    const hold = held();
    model.enqueue({ text: ["first"], pauseAfter: 1, gate: hold.gate }, { text: "second reply" }, { text: "fourth reply" });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "first" });
    const first = await startedTurn(thread.id, mark);
    const q2 = await server.main.request("turn/queue/add", { threadId: thread.id, text: "second", clientMessageId: "c2" });
    const q3 = await server.main.request("turn/queue/add", { threadId: thread.id, text: "third" });
    const q4 = await server.main.request("turn/queue/add", { threadId: thread.id, text: "fourth", images: [] });
    const update = await server.main.waitForNotification("turn/queue/updated", (p) => p.followUp.length === 3, { since: mark });
    assert.deepEqual(
      update.followUp.map((f) => f.text),
      ["second", "third", "fourth"],
    );
    assert.deepEqual(await server.main.request("turn/queue/remove", { threadId: thread.id, queueId: q3.queueId }), { removed: true });
    assert.deepEqual(await server.main.request("turn/queue/remove", { threadId: thread.id, queueId: q3.queueId }), { removed: false });
    hold.release();
    await completedTurn(thread.id, first);
    await waitUntil("two more turns", () => server.main.notificationsOf("turn/completed").filter((p) => p.threadId === thread.id).length >= 3 || undefined);
    const turns = server.main.notificationsOf("item/completed").filter((p) => p.threadId === thread.id && p.item.type === "userMessage");
    assert.deepEqual(
      turns.map((p) => (p.item as { text: string }).text),
      ["first", "second", "fourth"],
    );
    const second = turns[1]!.item as { clientMessageId?: string };
    assert.equal(second.clientMessageId, "c2");
    assert.deepEqual(await server.main.request("turn/queue/remove", { threadId: thread.id, queueId: q2.queueId }), { removed: false });
    void q4;
  });

  test("on an idle thread a queued input starts at once", async () => {
    const thread = await newThread();
    model.enqueue({ text: "right away" });
    const mark = server.main.notifications.length;
    await server.main.request("turn/queue/add", { threadId: thread.id, text: "now", clientMessageId: "idle-1" });
    const turnId = await startedTurn(thread.id, mark);
    await completedTurn(thread.id, turnId);
  });

  test("a queued input that cannot start is dropped with an error carrying its clientMessageId", async () => {
    const own = await ScriptedModelServer.start();
    const other = await startServer({ model: own });
    try {
      const { thread } = await other.main.request("thread/start", { cwd: other.project() });
      const hold = held();
      own.enqueue({ text: ["a"], pauseAfter: 1, gate: hold.gate });
      await other.main.request("turn/start", { threadId: thread.id, text: "go" });
      await other.main.request("turn/queue/add", { threadId: thread.id, text: "queued", clientMessageId: "doomed-1" });
      const json = own.modelsJson() as { providers: { scripted: Record<string, unknown> } };
      delete json.providers.scripted.apiKey;
      writeFileSync(join(other.agentDir, "models.json"), JSON.stringify(json));
      hold.release();
      const dropped = await other.main.waitForNotification("error", (p) => p.clientMessageId === "doomed-1");
      assert.equal(dropped.kind, "queuedInputDropped");
      assert.equal(dropped.threadId, thread.id);
      assert.match(dropped.message, /credentials/);
    } finally {
      await other.close();
      await own.close();
    }
  });
});

describe("spec: turn/interrupt", () => {
  test("answers at once, ends the streaming turn interrupted and cancels the model request", async () => {
    const thread = await newThread();
    model.enqueue({ text: ["partial"], pauseAfter: 2 });
    const mark = server.main.notifications.length;
    const before = model.requests.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "long" });
    const turnId = await startedTurn(thread.id, mark);
    await server.main.waitForNotification("item/agentMessage/delta", (p) => p.turnId === turnId, { since: mark });
    const started = Date.now();
    assert.deepEqual(await server.main.request("turn/interrupt", { threadId: thread.id, turnId }), { interrupted: true });
    const done = await completedTurn(thread.id, turnId);
    assert.equal(done.turn.status, "interrupted");
    assert.ok(Date.now() - started < 2000);
    await waitUntil("the request to be cancelled", () => model.requests[before]!.abortedAt);
  });

  test("a stale turnId is turnMismatch; with nothing running it interrupts nothing", async () => {
    const thread = await newThread();
    assert.deepEqual(await server.main.request("turn/interrupt", { threadId: thread.id }), { interrupted: false });
    const stale = await server.main.request("turn/interrupt", { threadId: thread.id, turnId: "old" }).catch((e: unknown) => e);
    assert.ok(stale instanceof AppServerError && stale.code === "turnMismatch");
  });

  test("it drops queued inputs, which never start", async () => {
    const thread = await newThread();
    model.enqueue({ text: ["x"], pauseAfter: 2 });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "go" });
    const turnId = await startedTurn(thread.id, mark);
    await server.main.request("turn/queue/add", { threadId: thread.id, text: "never runs" });
    await server.main.request("turn/interrupt", { threadId: thread.id });
    await completedTurn(thread.id, turnId);
    const cleared = await server.main.waitForNotification("turn/queue/updated", (p) => p.threadId === thread.id && p.followUp.length === 0, { since: mark });
    assert.deepEqual(cleared.followUp, []);
    // A dropped input would have started as soon as the thread was free; a turn started after that point shows it did not.
    const before = model.requests.length;
    await turnWhenAdmitted(thread.id, "after the interrupt", "fine");
    const users = server.main.notificationsOf("item/completed").filter((p) => p.threadId === thread.id && p.item.type === "userMessage");
    assert.deepEqual(
      users.map((p) => (p.item as { text: string }).text),
      ["go", "after the interrupt"],
    );
    assert.equal(server.main.notificationsOf("turn/started").filter((p) => p.threadId === thread.id).length, 2);
    assert.equal(model.requests.length, before + 1);
    assert.doesNotMatch(JSON.stringify(model.requests[before]!.body.messages), /never runs/);
  });

  test("an input queued while a start is in its hooks starts once that start is handled", async () => {
    const thread = await newThread();
    const gate = gatePath();
    const start = server.main.request("turn/start", { threadId: thread.id, text: `do it here hold-handle:${gate}` });
    await hookReached(gate, "held");
    model.enqueue({ text: "the queued one ran" });
    const mark = server.main.notifications.length;
    await server.main.request("turn/queue/add", { threadId: thread.id, text: "queued meanwhile" });
    writeFileSync(gate, "");
    assert.equal((await start).status, "handled");
    const turnId = await startedTurn(thread.id, mark);
    await completedTurn(thread.id, turnId);
    const users = server.main.notificationsOf("item/completed").filter((p) => p.threadId === thread.id && p.item.type === "userMessage");
    assert.deepEqual(
      users.map((p) => (p.item as { text: string }).text),
      ["queued meanwhile"],
    );
  });

  test("a start interrupted during its input hooks answers cancelled and launches nothing", async () => {
    const thread = await newThread();
    const gate = gatePath();
    const before = model.requests.length;
    const mark = server.main.notifications.length;
    const start = server.main.request("turn/start", { threadId: thread.id, text: `wait hold-input:${gate}` });
    await hookReached(gate, "held");
    const second = await server.main.request("turn/start", { threadId: thread.id, text: "meanwhile" }).catch((e: unknown) => e);
    assert.ok(second instanceof AppServerError && second.code === "turnInProgress", "admission is held through the hooks");
    assert.deepEqual(await server.main.request("turn/interrupt", { threadId: thread.id }), { interrupted: true });
    assert.equal((await start).status, "cancelled");
    writeFileSync(gate, "");
    await hookReached(gate, "resumed");
    // The hook finished; had the cancelled start gone on, its turn would come before this one.
    const turnId = await turnWhenAdmitted(thread.id, "after the cancel", "fine");
    assert.equal(model.requests.length, before + 1, "only the later turn asked the model");
    assert.doesNotMatch(JSON.stringify(model.requests[before]!.body.messages), /hold-input/);
    const started = server.main.notifications.slice(mark).filter((n) => n.method === "turn/started");
    assert.deepEqual(
      started.map((n) => (n.params as { turn: { id: string } }).turn.id),
      [turnId],
    );
  });

  test("a start interrupted in before_agent_start answers started and completes interrupted without a model request", async () => {
    const thread = await newThread();
    const gate = gatePath();
    const before = model.requests.length;
    const mark = server.main.notifications.length;
    const start = await server.main.request("turn/start", { threadId: thread.id, text: `wait hold-start:${gate}` });
    assert.equal(start.status, "started");
    const turnId = await startedTurn(thread.id, mark);
    await server.main.request("turn/interrupt", { threadId: thread.id, turnId });
    const done = await completedTurn(thread.id, turnId);
    assert.equal(done.turn.status, "interrupted");
    writeFileSync(gate, "");
    await hookReached(gate, "resumed");
    // The hook finished; a request of the interrupted turn would come before this turn's.
    await turnWhenAdmitted(thread.id, "after the interrupt", "fine");
    assert.equal(model.requests.length, before + 1, "no model request but the later turn's");
    assert.match(JSON.stringify(model.requests[before]!.body.messages.at(-1)), /after the interrupt/);
  });

  test("a running bash command's whole process group is killed", async () => {
    const thread = await newThread();
    const pidFile = join(cwd, `bash-${Date.now()}.pid`);
    model.enqueue({ toolCalls: [{ id: "call_sleep", name: "bash", arguments: { command: `sleep 60 & echo $! > ${pidFile}; wait` } }] });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "sleep" });
    const turnId = await startedTurn(thread.id, mark);
    await waitUntil("the child's pid", () => (existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "") || undefined);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await server.main.request("turn/interrupt", { threadId: thread.id, turnId });
    const done = await completedTurn(thread.id, turnId);
    assert.equal(done.turn.status, "interrupted");
    await waitUntil("the grandchild to die", () => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true;
      }
    });
  });
});

describe("spec: admission and compaction", () => {
  test("settings changes wait for no one: a model change during a turn is turnInProgress", async () => {
    const thread = await newThread();
    const hold = held();
    model.enqueue({ text: ["a"], pauseAfter: 1, gate: hold.gate });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "go" });
    const turnId = await startedTurn(thread.id, mark);
    const change = await server.main
      .request("thread/settings/update", { threadId: thread.id, model: { provider: "scripted", id: "scripted-reasoner" } })
      .catch((e: unknown) => e);
    assert.ok(change instanceof AppServerError && change.code === "turnInProgress");
    hold.release();
    await completedTurn(thread.id, turnId);
  });

  test("thread/compact/start runs a turn holding a compaction item; it is refused while busy", async () => {
    const thread = await newThread();
    model.enqueue({ text: "one" }, { text: "two" });
    for (const text of ["q1", "q2"]) {
      const mark = server.main.notifications.length;
      await server.main.request("turn/start", { threadId: thread.id, text });
      await completedTurn(thread.id, await startedTurn(thread.id, mark));
    }
    const hold = held();
    model.enqueue({ text: ["## Goal\nsummary"], pauseAfter: 1, gate: hold.gate });
    const mark = server.main.notifications.length;
    const { turnId } = await server.main.request("thread/compact/start", { threadId: thread.id });
    const busy = await server.main.request("turn/start", { threadId: thread.id, text: "now?" }).catch((e: unknown) => e);
    assert.ok(busy instanceof AppServerError && busy.code === "turnInProgress");
    hold.release();
    const done = await completedTurn(thread.id, turnId);
    assert.equal(done.turn.status, "completed");
    const item = server.main.notifications
      .slice(mark)
      .find((n) => n.method === "item/completed" && (n.params as { item: { type: string } }).item.type === "compaction");
    assert.equal((item!.params as { item: { summary: string } }).item.summary, "## Goal\nsummary");
  });
});
