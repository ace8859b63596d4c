import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ReconnectingClient, type ResumedThread } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, waitUntil } from "../support/harness.js";

const TOKEN = "reconnect-test-token-0123456789abcdef";
let model: ScriptedModelServer;
let home: string;
let dir: string;

before(async () => {
  model = await ScriptedModelServer.start();
  home = mkdtempSync(join(tmpdir(), "kc-reconnect-home-"));
  dir = mkdtempSync(join(tmpdir(), "kc-reconnect-ready-"));
});
after(async () => {
  await model.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

async function listening(readyFile: string): Promise<TestServer> {
  const server = await startServer({
    model,
    home,
    args: ["--listen", "ws://127.0.0.1:0", "--listen-ready-file", readyFile],
    env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN },
  });
  await server.waitForStderr(/listening on/);
  return server;
}

test("the server restarts mid-thread: the client reconnects, resumes the thread with its history and ui, and its handlers answer again", async () => {
  const readyFile = join(dir, "ready.json");
  const first = await listening(readyFile);
  let second: TestServer | undefined;
  const client = await ReconnectingClient.connect({
    readyFile,
    token: TOKEN,
    initialize: { clientInfo: { name: "reconnect-test", version: "0" } },
    retryDelaysMs: [20, 50, 100],
  });
  try {
    const approvals: string[] = [];
    client.onRequest("item/toolCall/requestApproval", (params) => {
      approvals.push(params.tool);
      return { decision: "accept" };
    });
    const cwd = first.project({ "a.txt": "alpha\n" });
    const { thread } = await client.request("thread/start", { cwd, approvalMode: "ask" });
    model.enqueue({ text: "before the restart" });
    const done = await client.runTurn(thread.id, "first");
    assert.equal((await done.completed).status, "completed");

    // A second turn is mid-stream when the server dies.
    let releaseStream!: () => void;
    model.enqueue({ text: ["partial ", "never sent"], pauseAfter: 1, gate: new Promise<void>((resolve) => (releaseStream = resolve)) });
    const asked = model.requests.length;
    const cut = await client.runTurn(thread.id, "second");
    await model.waitForRequests(asked + 1);
    const disconnected = new Promise<void>((resolve) => client.onDisconnect(() => resolve()));
    const reconnected = new Promise<ResumedThread[]>((resolve) => client.onReconnect(resolve));
    first.transport.child.kill("SIGKILL");
    await first.waitForExit();
    await disconnected;
    releaseStream();

    second = await listening(readyFile);
    const resumed = await reconnected;
    // The new server cannot replay what the old one sent: the run ends as the history it answered shows the turn.
    assert.equal(resumed[0]?.ok && resumed[0].result.replayed, false);
    assert.equal((await cut.completed).status, "interrupted");
    assert.equal(resumed.length, 1);
    const again = resumed[0]!;
    assert.ok(again.ok, again.ok ? "" : again.error.message);
    assert.equal(again.threadId, thread.id);
    assert.ok(
      again.result.turns.some((turn) => turn.id === done.turnId),
      "the history came back",
    );
    assert.deepEqual(client.threadUi(thread.id), again.result.ui);
    assert.deepEqual(client.openThreads, [thread.id]);

    // The approval handler installed before the restart answers on the new connection.
    model.enqueue({ toolCalls: [{ id: "call_after", name: "bash", arguments: { command: "touch after-restart.txt" } }] }, { text: "done" });
    const next = await client.runTurn(thread.id, "third");
    assert.equal((await next.completed).status, "completed");
    assert.deepEqual(approvals, ["bash"]);
    await waitUntil("the accepted command to run", () => existsSync(join(cwd, "after-restart.txt")) || undefined);
    second.assertNoSchemaViolations();
  } finally {
    await client.close();
    if (second) await second.close();
    first.cleanup();
  }
});

test("a server with another token on reconnection stops the client instead of knocking forever, and never gets the token", async () => {
  const readyFile = join(dir, "ready-refused.json");
  const first = await listening(readyFile);
  const client = await ReconnectingClient.connect({
    readyFile,
    token: TOKEN,
    initialize: { clientInfo: { name: "reconnect-test", version: "0" } },
    retryDelaysMs: [20],
  });
  first.transport.child.kill("SIGKILL");
  await first.waitForExit();
  const other = await startServer({
    model,
    home,
    args: ["--listen", "ws://127.0.0.1:0", "--listen-ready-file", readyFile],
    env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN.replace("reconnect", "different") },
  });
  try {
    const reason = await client.closed;
    assert.equal((reason as { kind?: string }).kind, "untrusted");
    assert.match((reason as Error).message, /did not prove that it holds this token.*the token was not sent/);
  } finally {
    await other.close();
    first.cleanup();
  }
});

test("a dropped connection (the server still up): the approval waiting on it comes back to the reconnected client's handler", async () => {
  const readyFile = join(dir, "ready-drop.json");
  const server = await listening(readyFile);
  const client = await ReconnectingClient.connect({
    readyFile,
    token: TOKEN,
    initialize: { clientInfo: { name: "reconnect-test", version: "0" } },
    retryDelaysMs: [20],
  });
  try {
    const cwd = server.project({});
    const { thread } = await client.request("thread/start", { cwd, approvalMode: "ask" });
    // Another subscriber that never answers holds the question while this client is away.
    await server.main.request("thread/resume", { threadId: thread.id });
    let heldElsewhere = 0;
    let withdrawnElsewhere = false;
    server.main.client.onRequest("item/toolCall/requestApproval", (_params, { signal }) => {
      heldElsewhere++;
      return new Promise(() => signal.addEventListener("abort", () => (withdrawnElsewhere = true)));
    });
    const asked: string[] = [];
    client.onRequest("item/toolCall/requestApproval", (params) => {
      asked.push(params.itemId);
      // The first time, the person has not answered yet when the connection drops.
      return asked.length === 1 ? new Promise(() => undefined) : { decision: "accept" };
    });
    model.enqueue({ toolCalls: [{ id: "call_drop", name: "bash", arguments: { command: "touch after-drop.txt" } }] }, { text: "done" });
    const reconnected = new Promise<ResumedThread[]>((resolve) => client.onReconnect(resolve));
    // Registered once, reinstalled on every connection.
    const completions: string[] = [];
    client.onNotification("turn/completed", (p) => p.threadId === thread.id && completions.push(p.turn.status));
    const run = await client.runTurn(thread.id, "run it");
    await waitUntil("the approval to reach this client", () => asked.length === 1 || undefined);
    await client.client.close();
    const resumed = await reconnected;
    assert.ok(resumed[0]?.ok);
    await waitUntil("the command to run", () => existsSync(join(cwd, "after-drop.txt")) || undefined);
    assert.deepEqual(asked, ["call_drop", "call_drop"], "asked again, on the new connection");
    assert.ok(heldElsewhere <= 1 && (heldElsewhere === 0 || withdrawnElsewhere), "whoever held it meanwhile saw it withdrawn");
    await waitUntil("the turn to complete on the new connection", () => completions.includes("completed") || undefined, 20_000);
    assert.equal((await run.completed).status, "completed", "the run followed its turn across the reconnection");
    server.assertNoSchemaViolations();
  } finally {
    await client.close();
    await server.close();
  }
});

test("connect through a ready file the server has not written yet waits for it, and connects once it is there", async () => {
  const readyFile = join(dir, "later.json");
  const connecting = ReconnectingClient.connect({
    readyFile,
    token: TOKEN,
    initialize: { clientInfo: { name: "reconnect-test", version: "0" } },
    retryDelaysMs: [20, 50],
  });
  const server = await listening(readyFile);
  const client = await connecting;
  try {
    assert.equal((await client.request("server/diagnostics", {})).loadedThreads, 0);
  } finally {
    await client.close();
    await server.close();
  }
});

test("connect through a ready file that never comes gives up: a timeout after readyTimeoutMs, or closed after maxAttempts, with the cause", async () => {
  const readyFile = join(dir, "never.json");
  const base = { readyFile, token: TOKEN, initialize: { clientInfo: { name: "reconnect-test", version: "0" } }, retryDelaysMs: [10] };
  const timedOut = await ReconnectingClient.connect({ ...base, readyTimeoutMs: 150 }).catch((error: unknown) => error);
  assert.equal((timedOut as { kind?: string }).kind, "timeout");
  assert.match(String((timedOut as Error).message), /never\.json/);
  assert.match(String(((timedOut as Error).cause as Error | undefined)?.message), /not there yet/);
  const gaveUp = await ReconnectingClient.connect({ ...base, maxAttempts: 3 }).catch((error: unknown) => error);
  assert.equal((gaveUp as { kind?: string }).kind, "closed");
  assert.match(String((gaveUp as Error).message), /in 3 attempts/);
});
