import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { RequestId, ServerRequestParams, ServerRequestResult } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestClient, type TestServer, startServer, waitUntil } from "../support/harness.js";

type Asking = "item/toolCall/requestApproval" | "item/toolCall/requestUserInput";
type ToolCall = { id?: string; name: string; arguments: unknown };

const TOKEN = "held-requests-test-token-0123456789abcdef";
const UNATTENDED = "Cancelled: nobody was connected to answer";
let model: ScriptedModelServer;
let server: TestServer;
let url: string;
let cwd: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model, args: ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN] });
  url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  cwd = server.project({ "a.txt": "alpha\n" });
  // Outside plan mode a thread offers ask_user only when defaultTools names it.
  writeFileSync(join(server.agentDir, "settings.json"), JSON.stringify({ defaultTools: ["+ask_user"] }));
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
});

/** A WebSocket client, opted in to held requests or not. */
async function connect(label: string, holdRequests: boolean): Promise<TestClient> {
  const client = await server.connectWebSocket(url, TOKEN, label);
  await client.client.initialize({ clientInfo: { name: label }, ...(holdRequests ? { capabilities: { holdRequests: true } } : {}) });
  return client;
}

interface Asked<M extends Asking> {
  params: ServerRequestParams<M>;
  requestId: RequestId;
}

/** Holds every request of `method` a client gets until the test answers it. */
function holding<M extends Asking>(client: TestClient, method: M) {
  const asked: Asked<M>[] = [];
  const waiting: ((answer: ServerRequestResult<M>) => void)[] = [];
  const off = client.client.onRequest(method, (params, context) => {
    asked.push({ params, requestId: context.requestId });
    return new Promise<ServerRequestResult<M>>((resolve) => waiting.push(resolve));
  });
  return {
    asked,
    off,
    answer(answer: ServerRequestResult<M>) {
      waiting.at(-1)!(answer);
    },
  };
}

let callSeq = 0;
const call = (name: string, args: unknown): ToolCall => ({ id: `held_${++callSeq}`, name, arguments: args });

/** A thread of `client`'s whose turn calls `toolCall` (then says "done" unless it is meant to stop there). */
async function toolTurn(client: TestClient, toolCall: ToolCall, followUp = true) {
  const thread = (await client.request("thread/start", { cwd, approvalMode: "ask" })).thread;
  if (followUp) model.enqueue({ toolCalls: [toolCall] }, { text: "done" });
  else model.enqueue({ toolCalls: [toolCall] });
  const mark = client.notifications.length;
  await client.request("turn/start", { threadId: thread.id, text: "go" });
  const started = await client.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
  return { threadId: thread.id, turnId: started.turn.id };
}

/** The thread/status/changed statuses the stdio client (which every status reaches) saw for a thread since `since`. */
function statuses(threadId: string, since: number) {
  return server.main.notifications
    .slice(since)
    .filter((n) => n.method === "thread/status/changed" && (n.params as { threadId: string }).threadId === threadId)
    .map((n) => (n.params as { status: { type: string; waitingOn?: string[] } }).status);
}

/** How many requests the log says were held so far: a hold is logged when it begins. */
const holdsLogged = () => server.stderr.split("\n").filter((line) => line.includes(" held: nobody is subscribed")).length;

async function savedItem(threadId: string, turnId: string, itemId: string) {
  const read = await server.main.request("thread/read", { threadId });
  const turn = read.turns.find((t) => t.id === turnId);
  return turn?.items?.find((i) => i.id === itemId) as { status?: string; output?: string } | undefined;
}

describe("issue 29: serverRequest/list", () => {
  test("a fresh server waits on nothing; two threads waiting at once are both listed, and neither once answered", async () => {
    assert.deepEqual(await server.main.request("serverRequest/list", {}), { requests: [] });
    const hold = holding(server.main, "item/toolCall/requestApproval");
    try {
      const before = Date.now();
      const firstCall = call("write", { path: "list-1.txt", content: "1" });
      const secondCall = call("write", { path: "list-2.txt", content: "2" });
      // The scripted model answers in order: the first turn is interrupted, so it gets no follow-up.
      const first = await toolTurn(server.main, firstCall, false);
      await waitUntil("the first approval", () => hold.asked[0]);
      const second = await toolTurn(server.main, secondCall);
      await waitUntil("the second approval", () => hold.asked[1]);
      const { requests } = await server.main.request("serverRequest/list", {});
      assert.deepEqual(
        requests.map(({ since: _, ...rest }) => rest),
        [
          { threadId: first.threadId, method: "item/toolCall/requestApproval", itemId: firstCall.id },
          { threadId: second.threadId, method: "item/toolCall/requestApproval", itemId: secondCall.id },
        ],
      );
      for (const request of requests) assert.ok(request.since >= before && request.since <= Date.now());
      hold.answer({ decision: "accept" });
      await server.main.waitForNotification("turn/completed", (p) => p.turn.id === second.turnId);
      assert.deepEqual(
        (await server.main.request("serverRequest/list", {})).requests.map((r) => r.threadId),
        [first.threadId],
      );
      await server.main.request("turn/interrupt", { threadId: first.threadId, turnId: first.turnId });
      await server.main.waitForNotification("turn/completed", (p) => p.turn.id === first.turnId);
      assert.deepEqual(await server.main.request("serverRequest/list", {}), { requests: [] });
    } finally {
      hold.off();
    }
  });
});

describe("issue 29: requests wait for a person (holdRequests)", () => {
  test("with the opt-in an approval outlives its client: listed, asked again of the next subscriber, and the turn completes", async () => {
    const first = await connect("first", true);
    const onFirst = holding(first, "item/toolCall/requestApproval");
    const toolCall = call("write", { path: "held.txt", content: "h" });
    const { threadId, turnId } = await toolTurn(first, toolCall);
    await waitUntil("the approval", () => onFirst.asked[0]);
    const mark = server.main.notifications.length;
    const holds = holdsLogged();
    await first.client.close();
    await waitUntil("the request is held", () => holdsLogged() > holds);

    const second = await connect("second", true);
    const onSecond = holding(second, "item/toolCall/requestApproval");
    try {
      const [listed, ...others] = (await second.request("serverRequest/list", {})).requests;
      assert.deepEqual(others, []);
      assert.deepEqual({ ...listed, since: 0 }, { threadId, method: "item/toolCall/requestApproval", itemId: toolCall.id, since: 0 });
      assert.ok(listed!.since <= Date.now());
      await second.request("thread/resume", { threadId });
      await waitUntil("the resuming client is asked", () => onSecond.asked[0]);
      assert.deepEqual(onSecond.asked[0]!.params, onFirst.asked[0]!.params);
      // All the while the thread waited on the approval: no status went out.
      assert.deepEqual(statuses(threadId, mark), []);
      onSecond.answer({ decision: "accept" });
      const done = await second.waitForNotification("turn/completed", (p) => p.turn.id === turnId);
      assert.equal(done.turn.status, "completed");
      assert.equal(readFileSync(join(cwd, "held.txt"), "utf8"), "h");
      assert.deepEqual(await second.request("serverRequest/list", {}), { requests: [] });
    } finally {
      onSecond.off();
      await second.client.close();
    }
  });

  test("without the opt-in the spec's cancel holds: the disconnect stops the turn and the call reads declined", async () => {
    const first = await connect("plain", false);
    const onFirst = holding(first, "item/toolCall/requestApproval");
    const toolCall = call("write", { path: "not-held.txt", content: "n" });
    const { threadId, turnId } = await toolTurn(first, toolCall, false);
    await waitUntil("the approval", () => onFirst.asked[0]);
    const holds = holdsLogged();
    await first.client.close();
    const done = await server.main.waitForNotification("thread/turn/completed", (p) => p.turn.id === turnId);
    assert.equal(done.turn.status, "interrupted");
    assert.equal(holdsLogged(), holds);
    assert.deepEqual(await server.main.request("serverRequest/list", {}), { requests: [] });
    assert.equal((await savedItem(threadId, turnId, toolCall.id!))?.status, "declined");
    assert.equal(existsSync(join(cwd, "not-held.txt")), false);
  });

  test("an interrupt ends a held request at once", async () => {
    const first = await connect("interrupted", true);
    const onFirst = holding(first, "item/toolCall/requestApproval");
    const { threadId, turnId } = await toolTurn(first, call("write", { path: "interrupted.txt", content: "i" }), false);
    await waitUntil("the approval", () => onFirst.asked[0]);
    const holds = holdsLogged();
    await first.client.close();
    await waitUntil("the request is held", () => holdsLogged() > holds);
    await server.main.request("turn/interrupt", { threadId, turnId });
    const done = await server.main.waitForNotification("thread/turn/completed", (p) => p.turn.id === turnId);
    assert.equal(done.turn.status, "interrupted");
    assert.deepEqual(await server.main.request("serverRequest/list", {}), { requests: [] });
  });

  test("past requests.holdSeconds the request is cancelled as unattended: failed, never declined, and the turn stops", async () => {
    await server.main.request("config/write", { scope: "global", key: "requests.holdSeconds", value: 1 });
    try {
      const first = await connect("leaves", true);
      const onFirst = holding(first, "item/toolCall/requestApproval");
      const toolCall = call("write", { path: "unattended.txt", content: "u" });
      const { threadId, turnId } = await toolTurn(first, toolCall, false);
      await waitUntil("the approval", () => onFirst.asked[0]);
      const mark = server.main.notifications.length;
      await first.client.close();
      const done = await server.main.waitForNotification("thread/turn/completed", (p) => p.turn.id === turnId, { since: mark });
      assert.equal(done.turn.status, "interrupted");
      assert.ok(statuses(threadId, mark).length > 0, "the wait ended when the turn did");
      assert.deepEqual(await server.main.request("serverRequest/list", {}), { requests: [] });
      const saved = await savedItem(threadId, turnId, toolCall.id!);
      assert.equal(saved?.status, "failed");
      assert.ok(saved?.output?.startsWith(`${UNATTENDED} this approval`), saved?.output);
      assert.equal(existsSync(join(cwd, "unattended.txt")), false);
      // What the model is told next time is the same: nobody declined.
      model.enqueue({ text: "ok" });
      const modelMark = model.requests.length;
      const resumed = await connect("after", true);
      await resumed.request("thread/resume", { threadId });
      await resumed.request("turn/start", { threadId, text: "again" });
      await waitUntil("the next model request", () => model.requests[modelMark]);
      const messages = model.requests[modelMark]!.body.messages as { role: string; tool_call_id?: string; content: unknown }[];
      const result = messages.find((m) => m.role === "tool" && m.tool_call_id === toolCall.id);
      assert.match(JSON.stringify(result?.content), /Cancelled: nobody was connected to answer this approval/);
      await resumed.waitForNotification("turn/completed", (p) => p.threadId === threadId);
      await resumed.client.close();
    } finally {
      await server.main.request("config/write", { scope: "global", key: "requests.holdSeconds", value: 600 });
    }
  });

  test("a classifier's confirmation held past requests.holdSeconds fails its call as unattended, never declined, and the turn stops", async () => {
    const tools = join(server.agentDir, "tools.json");
    writeFileSync(tools, JSON.stringify({ classifiers: { gate: { enabled: true, model: { provider: "scripted", id: "scripted-model" } } } }));
    await server.main.request("config/write", { scope: "global", key: "requests.holdSeconds", value: 1 });
    try {
      const first = await connect("classified", true);
      const asked: unknown[] = [];
      first.client.onRequest("ui/dialog", (params) => {
        asked.push(params);
        return new Promise<never>(() => undefined);
      });
      const thread = (await first.request("thread/start", { cwd, approvalMode: "fullAccess" })).thread;
      const toolCall = call("bash", { command: "echo risky > classified.txt" });
      // The turn's tool call, then the classifier's verdict on it: one scripted model answers both, in order.
      model.enqueue({ toolCalls: [toolCall] }, { text: "RISKY: writes a file" });
      const mark = server.main.notifications.length;
      await first.request("turn/start", { threadId: thread.id, text: "go" });
      await waitUntil("the confirmation", () => asked.length > 0);
      await first.client.close();
      const done = await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id, { since: mark });
      assert.equal(done.turn.status, "interrupted");
      const saved = await savedItem(thread.id, done.turn.id, toolCall.id!);
      assert.equal(saved?.status, "failed");
      assert.ok(saved?.output?.startsWith(`${UNATTENDED} this approval`), saved?.output);
      assert.equal(existsSync(join(cwd, "classified.txt")), false, "the call did not run");
    } finally {
      rmSync(tools, { force: true });
      await server.main.request("config/write", { scope: "global", key: "requests.holdSeconds", value: 600 });
    }
  });

  test("a project's requests.holdSeconds is ignored, with a warning: the global value holds", async () => {
    const project = server.project({ ".knightcode/settings.json": JSON.stringify({ requests: { holdSeconds: 1 } }) });
    await server.main.request("project/trust/set", { cwd: project, trusted: true });
    const first = await connect("project", true);
    const onFirst = holding(first, "item/toolCall/requestApproval");
    const { thread, warnings } = await first.request("thread/start", { cwd: project, approvalMode: "ask" });
    assert.ok(
      warnings.some((w) => /requests\.holdSeconds is a global setting/.test(w.message)),
      JSON.stringify(warnings),
    );
    model.enqueue({ toolCalls: [call("write", { path: "project.txt", content: "p" })] });
    await first.request("turn/start", { threadId: thread.id, text: "go" });
    const { turnId } = await waitUntil("the approval", () => onFirst.asked[0]?.params);
    const holds = holdsLogged();
    await first.client.close();
    await waitUntil("the request is held", () => holdsLogged() > holds);
    assert.match(
      server.stderr
        .split("\n")
        .filter((line) => line.includes(" held: nobody is subscribed"))
        .at(-1)!,
      /for 600 s/,
    );
    await server.main.request("turn/interrupt", { threadId: thread.id, turnId });
    await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id);
  });

  test("ask_user's questions are held across a reconnect the same way, and answered by the client that comes back", async () => {
    const first = await connect("asks", true);
    const onFirst = holding(first, "item/toolCall/requestUserInput");
    const toolCall = call("ask_user", { questions: [{ id: "db", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres" }] }] });
    const { threadId, turnId } = await toolTurn(first, toolCall);
    await waitUntil("the questions", () => onFirst.asked[0]);
    const holds = holdsLogged();
    await first.client.close();
    await waitUntil("the questions are held", () => holdsLogged() > holds);
    const again = await connect("asks-again", true);
    const onAgain = holding(again, "item/toolCall/requestUserInput");
    try {
      const { requests } = await again.request("serverRequest/list", {});
      assert.deepEqual(
        requests.map(({ since: _, ...rest }) => rest),
        [{ threadId, method: "item/toolCall/requestUserInput", itemId: toolCall.id }],
      );
      await again.request("thread/resume", { threadId });
      await waitUntil("the returning client is asked", () => onAgain.asked[0]);
      assert.deepEqual(onAgain.asked[0]!.params, onFirst.asked[0]!.params);
      onAgain.answer({ answers: { db: { label: "SQLite" } } });
      const done = await again.waitForNotification("turn/completed", (p) => p.turn.id === turnId);
      assert.equal(done.turn.status, "completed");
      const item = again.notificationsOf("item/completed").find((p) => p.item.id === toolCall.id)?.item as { status?: string } | undefined;
      assert.equal(item?.status, "completed");
    } finally {
      onAgain.off();
      await again.client.close();
    }
  });
});
