import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  AppServerClient,
  AppServerError,
  ClientError,
  WebSocketTransport,
  type HandlerErrorContext,
  type SpawnedServerTransport,
  type TurnEvent,
} from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { BIN, type TestServer, startServer } from "../support/harness.js";

const TOKEN = "client-helpers-token-0123456789abcdef";
let model: ScriptedModelServer;
let server: TestServer;
let url: string;
let cwd: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({
    model,
    args: ["--listen", "ws://127.0.0.1:0", "--allow-origin", "http://allowed.test"],
    env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN },
  });
  url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  cwd = server.project({ "a.txt": "alpha\n" });
});
after(async () => {
  server.assertNoSchemaViolations();
  await server.close();
  await model.close();
});

async function collect(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("runTurn", () => {
  test("gives the turn id, exactly that turn's notifications in order, and the completed turn", async () => {
    const client = server.main.client;
    const a = (await client.request("thread/start", { cwd })).thread;
    const b = (await client.request("thread/start", { cwd })).thread;
    model.enqueue({ text: ["hel", "lo"] }, { text: "other" });
    const runA = await client.runTurn(a.id, "say hello");
    const runB = await client.runTurn(b.id, { text: "say other" });
    assert.notEqual(runA.turnId, runB.turnId);
    const [eventsA, eventsB, turnA] = await Promise.all([collect(runA.events), collect(runB.events), runA.completed]);
    assert.equal(turnA.id, runA.turnId);
    assert.equal(turnA.status, "completed");
    for (const [run, events] of [
      [runA, eventsA],
      [runB, eventsB],
    ] as const) {
      assert.equal(events[0]!.method, "turn/started");
      assert.equal(events.at(-1)!.method, "turn/completed");
      for (const event of events) {
        const params = event.params as { threadId?: string; turnId?: string; turn?: { id: string } };
        assert.equal(params.threadId, run.threadId);
        assert.ok(params.turnId === run.turnId || params.turn?.id === run.turnId, event.method);
      }
    }
    // Checking the method narrows the params, without a cast.
    let deltas = "";
    for (const event of eventsA) if (event.method === "item/agentMessage/delta") deltas += event.params.delta;
    assert.equal(deltas, "hello");
    assert.ok(
      eventsA.every((e) => e.method !== "thread/turn/completed"),
      "the sidebar copy is not repeated",
    );
  });

  test("an unknown thread rejects with the server's error; input that starts no turn is a notStarted ClientError", async () => {
    const client = server.main.client;
    const missing = await client.runTurn("no-such-thread", "hi").catch((e: unknown) => e);
    assert.ok(missing instanceof AppServerError);
    assert.equal(missing.code, "threadNotFound");
    const thread = (await client.request("thread/start", { cwd })).thread;
    const handled = await client.runTurn(thread.id, "/reload").catch((e: unknown) => e);
    assert.ok(handled instanceof ClientError, String(handled));
    assert.equal(handled.kind, "notStarted");
  });
});

describe("waitFor", () => {
  test("resolves with the first notification the predicate accepts", async () => {
    const client = server.main.client;
    const thread = (await client.request("thread/start", { cwd })).thread;
    model.enqueue({ text: "waited" });
    const completed = client.waitFor("turn/completed", (p) => p.threadId === thread.id, { timeoutMs: 20_000 });
    await client.request("turn/start", { threadId: thread.id, text: "go" });
    assert.equal((await completed).turn.status, "completed");
  });

  test("times out and aborts as ClientErrors, and a closed connection ends the wait", async () => {
    const client = server.main.client;
    const timedOut = await client.waitFor("turn/completed", () => false, { timeoutMs: 30 }).catch((e: unknown) => e);
    assert.ok(timedOut instanceof ClientError && timedOut.kind === "timeout");
    const controller = new AbortController();
    const waiting = client.waitFor("turn/completed", undefined, { signal: controller.signal });
    controller.abort();
    const aborted = await waiting.catch((e: unknown) => e);
    assert.ok(aborted instanceof ClientError && aborted.kind === "aborted");
    const ws = await AppServerClient.connectWebSocket({ url, token: TOKEN });
    const pending = ws.waitFor("turn/completed");
    await ws.close();
    const closed = await pending.catch((e: unknown) => e);
    assert.ok(closed instanceof ClientError && closed.kind === "closed");
  });
});

describe("onHandlerError", () => {
  test("a throwing approval handler is reported locally, and the server still gets its answer (a decline)", async () => {
    const client = server.main.client;
    const seen: [unknown, HandlerErrorContext][] = [];
    const offHook = client.onHandlerError((error, context) => seen.push([error, context]));
    const offHandler = client.onRequest("item/toolCall/requestApproval", () => {
      throw new TypeError("bug in the approval dialog");
    });
    try {
      const thread = (await client.request("thread/start", { cwd, approvalMode: "ask" })).thread;
      model.enqueue({ toolCalls: [{ id: "call_bug", name: "bash", arguments: { command: "touch ran.txt" } }] }, { text: "done" });
      const run = await client.runTurn(thread.id, "run it");
      const turn = await run.completed;
      assert.equal(turn.status, "completed");
      assert.equal(seen.length, 1);
      const [error, context] = seen[0]!;
      assert.ok(error instanceof TypeError && error.message === "bug in the approval dialog");
      assert.equal(context.method, "item/toolCall/requestApproval");
      assert.equal((context.params as { threadId: string }).threadId, thread.id);
      assert.equal(existsSync(join(cwd, "ran.txt")), false, "the call was declined");
    } finally {
      offHandler();
      offHook();
    }
  });
});

describe("WebSocket refusals and the spawned transport", () => {
  test("a refused upgrade is an unauthorized ClientError with the HTTP status; a wrong token an untrusted one, never sent", async () => {
    const wrong = await AppServerClient.connectWebSocket({ url, token: "wrong" }).catch((e: unknown) => e);
    assert.ok(wrong instanceof ClientError, String(wrong));
    assert.equal(wrong.kind, "untrusted");
    assert.equal(wrong.status, undefined);
    for (const [options, status] of [
      [{ url }, 401],
      [{ url, headers: { authorization: "Bearer wrong" } }, 401],
      [{ url, token: TOKEN, origin: "http://evil.test" }, 403],
    ] as const) {
      const error = await AppServerClient.connectWebSocket(options).catch((e: unknown) => e);
      assert.ok(error instanceof ClientError, String(error));
      assert.equal(error.kind, "unauthorized");
      assert.equal(error.status, status);
    }
    const ok = await WebSocketTransport.connect({ url, token: TOKEN, origin: "http://allowed.test" });
    ok.close();
  });

  test("AppServerClient.spawn exposes its typed transport and child", async () => {
    const client = AppServerClient.spawn({
      command: process.execPath,
      args: [BIN, "app-server"],
      env: { ...process.env, HOME: server.home },
      stderr: "ignore",
    });
    const transport: SpawnedServerTransport = client.transport;
    assert.equal(typeof transport.child.pid, "number");
    await client.initialize({ clientInfo: { name: "spawn-test", version: "0" } });
    await client.close();
    assert.equal((await transport.exited).code, 0);
  });
});
