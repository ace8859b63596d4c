import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ReconnectingClient, type ResumedThread } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { TestServer, startServer, waitUntil } from "../support/harness.js";

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
  const server = await startServer({ model, home, args: ["--listen", "ws://127.0.0.1:0", "--listen-ready-file", readyFile], env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
  await server.waitForStderr(/listening on/);
  return server;
}

test("the server restarts mid-thread: the client reconnects, resumes the thread with its history and ui, and its handlers answer again", async () => {
  const readyFile = join(dir, "ready.json");
  const first = await listening(readyFile);
  let second: TestServer | undefined;
  const client = await ReconnectingClient.connect({ readyFile, token: TOKEN, initialize: { clientInfo: { name: "reconnect-test", version: "0" } }, retryDelaysMs: [20, 50, 100] });
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
    await assert.rejects(cut.completed, { kind: "closed" });
    releaseStream();

    second = await listening(readyFile);
    const resumed = await reconnected;
    assert.equal(resumed.length, 1);
    const again = resumed[0]!;
    assert.ok(again.ok, again.ok ? "" : again.error.message);
    assert.equal(again.threadId, thread.id);
    assert.ok(again.result.turns.some((turn) => turn.id === done.turnId), "the history came back");
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

test("a refused token on reconnection stops the client instead of knocking forever", async () => {
  const readyFile = join(dir, "ready-refused.json");
  const first = await listening(readyFile);
  const client = await ReconnectingClient.connect({ readyFile, token: TOKEN, initialize: { clientInfo: { name: "reconnect-test", version: "0" } }, retryDelaysMs: [20] });
  first.transport.child.kill("SIGKILL");
  await first.waitForExit();
  const other = await startServer({ model, home, args: ["--listen", "ws://127.0.0.1:0", "--listen-ready-file", readyFile], env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN.replace("reconnect", "different") } });
  try {
    const reason = await client.closed;
    assert.equal((reason as { kind?: string }).kind, "unauthorized");
    assert.equal((reason as { status?: number }).status, 401);
  } finally {
    await other.close();
    first.cleanup();
  }
});
