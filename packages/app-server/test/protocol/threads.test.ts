import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppServerError } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, type TestClient } from "../support/harness.js";

const TOKEN = "threads-test-token-0123456789abcdef";
let model: ScriptedModelServer;
let server: TestServer;
let ws: TestClient;
let cwd: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model, args: ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN] });
  const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  ws = await server.connectWebSocket(url, TOKEN);
  await ws.initialize();
  cwd = server.project({ "a.txt": "alpha\n" });
});
after(async () => {
  await server.close();
  await model.close();
});

async function runTurn(client: TestClient, threadId: string, text: string, reply: Parameters<ScriptedModelServer["enqueue"]>[0] = { text: `re: ${text}` }) {
  model.enqueue(reply);
  const mark = client.notifications.length;
  await client.request("turn/start", { threadId, text });
  const started = await client.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  return client.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id);
}

describe("spec: Subscriptions and replacement", () => {
  test("sidebar notifications reach every connection; turn and item notifications only subscribers", async () => {
    const wsMark = ws.notifications.length;
    const { thread } = await server.main.request("thread/start", { cwd });
    await ws.waitForNotification("thread/started", (p) => p.thread.id === thread.id, { since: wsMark });
    await runTurn(server.main, thread.id, "hello");
    await ws.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id, { since: wsMark });
    const seen = ws.notifications
      .slice(wsMark)
      .filter((n) => (n.params as { threadId?: string }).threadId === thread.id)
      .map((n) => n.method);
    assert.ok(seen.includes("thread/status/changed"));
    assert.ok(seen.includes("thread/name/updated"), "the first message names the thread");
    for (const method of seen)
      assert.ok(!method.startsWith("item/") && method !== "turn/started" && method !== "turn/completed" && method !== "thread/tokenUsage/updated", method);
  });

  test("two subscribers (stdio and a WebSocket) both see the whole stream", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    const resumed = await ws.request("thread/resume", { threadId: thread.id });
    assert.equal(resumed.thread.id, thread.id);
    const wsMark = ws.notifications.length;
    const done = await runTurn(server.main, thread.id, "both", { text: ["x", "y", "z"] });
    await ws.waitForNotification("turn/completed", (p) => p.turn.id === done.turn.id, { since: wsMark });
    const deltas = (client: TestClient) =>
      client
        .notificationsOf("item/agentMessage/delta")
        .filter((p) => p.turnId === done.turn.id)
        .map((p) => p.delta);
    assert.deepEqual(deltas(server.main), ["x", "y", "z"]);
    assert.deepEqual(deltas(ws), ["x", "y", "z"]);
  });

  test("thread/unsubscribe stops turn notifications; a second one is notSubscribed", async () => {
    const { thread } = await ws.request("thread/start", { cwd });
    assert.deepEqual(await ws.request("thread/unsubscribe", { threadId: thread.id }), { status: "unsubscribed" });
    assert.deepEqual(await ws.request("thread/unsubscribe", { threadId: thread.id }), { status: "notSubscribed" });
    await server.main.request("thread/resume", { threadId: thread.id });
    const wsMark = ws.notifications.length;
    const done = await runTurn(server.main, thread.id, "quiet");
    await ws.waitForNotification("thread/turn/completed", (p) => p.turn.id === done.turn.id, { since: wsMark });
    assert.equal(ws.notifications.slice(wsMark).filter((n) => n.method.startsWith("item/")).length, 0);
  });

  test("thread/resume of a running turn returns it as runningTurn and subscribes without losing or doubling deltas", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    let release!: () => void;
    // The first event carries the role; the pause comes after "two ".
    model.enqueue({ text: ["one ", "two ", "three"], pauseAfter: 3, gate: new Promise<void>((r) => (release = r)) });
    await server.main.request("turn/start", { threadId: thread.id, text: "stream" });
    await server.main.waitForNotification("item/agentMessage/delta", (p) => p.threadId === thread.id && p.delta === "two ");
    const resumed = await ws.request("thread/resume", { threadId: thread.id });
    const running = resumed.runningTurn!;
    assert.equal(running.status, "inProgress");
    const answer = running.items!.find((i) => i.type === "agentMessage") as { id: string; text: string };
    assert.equal(answer.text, "one two ");
    assert.deepEqual(
      resumed.turns.filter((t) => t.id === running.id),
      [],
      "the running turn is not also in history",
    );
    const wsMark = ws.notifications.length;
    release();
    await ws.waitForNotification("turn/completed", (p) => p.turn.id === running.id, { since: wsMark });
    const later = ws.notifications
      .slice(wsMark)
      .filter((n) => n.method === "item/agentMessage/delta")
      .map((n) => (n.params as { delta: string }).delta);
    assert.equal(answer.text + later.join(""), "one two three");
  });
});

describe("spec: Threads and turns (history, fork, names, settings)", () => {
  test("thread/resume returns saved turns with items, usage and the queue", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    await runTurn(server.main, thread.id, "first question", { text: "first answer", usage: { input: 10, output: 2 } });
    await runTurn(server.main, thread.id, "second question", { text: "second answer", usage: { input: 20, output: 4 } });
    const resumed = await ws.request("thread/resume", { threadId: thread.id });
    assert.deepEqual(
      resumed.turns.map((t) => t.status),
      ["completed", "completed"],
    );
    const items = resumed.turns[1]!.items!.map((i) => [i.type, (i as { text?: string }).text]);
    assert.deepEqual(items, [
      ["userMessage", "second question"],
      ["agentMessage", "second answer"],
    ]);
    assert.equal(resumed.usage.input, 30);
    assert.deepEqual(resumed.queue, { steering: [], followUp: [] });
    assert.equal(resumed.nextCursor, undefined);
  });

  test("live item ids and indexes match the ones history gives back", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess", model: { provider: "scripted", id: "scripted-reasoner" } });
    model.enqueue({ reasoning: "hmm", text: "reading", toolCalls: [{ id: "call_ls", name: "read", arguments: { path: "a.txt" } }] });
    await runTurn(server.main, thread.id, "mixed", { reasoning: "again", text: "done" });
    const live = server.main
      .notificationsOf("item/completed")
      .filter((p) => p.threadId === thread.id)
      .map((p) => [p.item.id, p.item.index, p.item.type]);
    const resumed = await server.main.request("thread/resume", { threadId: thread.id });
    const saved = resumed.turns.at(-1)!.items!.map((i) => [i.id, (i as { index?: number }).index, i.type]);
    assert.deepEqual(saved, live);
  });

  test("fork copies the history into a new thread named after its source", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    await runTurn(server.main, thread.id, "Plan the migration");
    const forked = await server.main.request("thread/fork", { threadId: thread.id });
    assert.notEqual(forked.thread.id, thread.id);
    assert.equal(forked.thread.name, "Plan the migration (fork)");
    assert.equal(forked.thread.forkedFromId, thread.id);
    const history = await server.main.request("thread/resume", { threadId: forked.thread.id });
    assert.equal(history.turns.length, 1);
    await runTurn(server.main, forked.thread.id, "continue in the fork");
  });

  test("thread/name/set renames and every connection hears of it", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    const wsMark = ws.notifications.length;
    await server.main.request("thread/name/set", { threadId: thread.id, name: "Billing bug" });
    const note = await ws.waitForNotification("thread/name/updated", (p) => p.threadId === thread.id, { since: wsMark });
    assert.equal(note.name, "Billing bug");
    const blank = await server.main.rawRequest("thread/name/set", { threadId: thread.id, name: "   " });
    assert.equal(blank.error?.code, "invalidParams");
  });

  test("thread/settings/update validates the model and level and applies them to the next turn", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    const unknown = await server.main
      .request("thread/settings/update", { threadId: thread.id, model: { provider: "scripted", id: "ghost" } })
      .catch((e: unknown) => e);
    assert.ok(unknown instanceof AppServerError && unknown.code === "invalidParams");
    const level = await server.main.request("thread/settings/update", { threadId: thread.id, thinkingLevel: "high" }).catch((e: unknown) => e);
    assert.ok(level instanceof AppServerError && level.code === "invalidParams", "a non-reasoning model offers only off");
    const updated = await server.main.request("thread/settings/update", {
      threadId: thread.id,
      model: { provider: "scripted", id: "scripted-reasoner" },
      thinkingLevel: "low",
      approvalMode: "autoEdit",
    });
    assert.deepEqual(
      [updated.thread.model, updated.thread.thinkingLevel, updated.thread.approvalMode],
      [{ provider: "scripted", id: "scripted-reasoner" }, "low", "autoEdit"],
    );
    const before = model.requests.length;
    await runTurn(server.main, thread.id, "go");
    assert.equal(model.requests[before]!.body.model, "scripted-reasoner");
    assert.equal(model.requests[before]!.body.reasoning_effort, "low");
  });
});

describe("spec: Threads and turns (no usable model)", () => {
  test("without any model, turn/start is a clear invalidParams; without credentials, authRequired", async () => {
    const bare = await startServer({ modelsJson: { providers: {} } });
    try {
      const { thread } = await bare.main.request("thread/start", { cwd: bare.project() });
      assert.equal(thread.model, null);
      const answer = await bare.main.rawRequest("turn/start", { threadId: thread.id, text: "hi" });
      assert.equal(answer.error?.code, "invalidParams");
      assert.match(answer.error!.message, /no model is usable/);
    } finally {
      await bare.close();
    }
    const json = model.modelsJson() as { providers: { scripted: Record<string, unknown> } };
    delete json.providers.scripted.apiKey;
    const keyless = await startServer({ modelsJson: json });
    try {
      const { thread } = await keyless.main.request("thread/start", { cwd: keyless.project(), model: { provider: "scripted", id: "scripted-model" } });
      const answer = await keyless.main.rawRequest("turn/start", { threadId: thread.id, text: "hi" });
      assert.equal(answer.error?.code, "authRequired");
    } finally {
      await keyless.close();
    }
  });
});

describe("kill and resume", () => {
  test("a thread survives kill -9 mid-history: finished turns come back, the cut one reads interrupted", async () => {
    const first = await startServer({ model });
    const project = first.project({ "b.txt": "beta" });
    const { thread } = await first.main.request("thread/start", { cwd: project });
    await runTurn(first.main, thread.id, "turn one");
    await runTurn(first.main, thread.id, "turn two");
    model.enqueue({ text: ["never", " finishes"], pauseAfter: 2 });
    const mark = first.main.notifications.length;
    await first.main.request("turn/start", { threadId: thread.id, text: "turn three" });
    await first.main.waitForNotification("item/agentMessage/delta", (p) => p.threadId === thread.id && p.delta === "never", { since: mark });
    first.kill("SIGKILL");
    await first.waitForExit();
    const second = await startServer({ model, home: first.home });
    try {
      const resumed = await second.main.request("thread/resume", { threadId: thread.id });
      assert.deepEqual(
        resumed.turns.map((t) => t.status),
        ["completed", "completed", "interrupted"],
      );
      assert.equal(resumed.turns[2]!.completedAt, undefined);
      assert.equal(resumed.turns[0]!.items![0]!.type, "userMessage");
      await runTurn(second.main, thread.id, "turn four");
    } finally {
      await second.close();
      first.cleanup();
    }
  });
});

describe("extensions over the protocol", () => {
  test("a -e extension that throws at load is a warning of thread/start; a later failure is a warning notification", async () => {
    const extDir = server.project({}, "exts");
    const broken = join(extDir, "broken.ts");
    const flaky = join(extDir, "flaky.ts");
    writeFileSync(broken, `export default function () { throw new Error("cannot start"); }`);
    writeFileSync(flaky, `export default (kc: any) => kc.on("message_end", () => { throw new Error("flaky handler"); });`);
    const withExt = await startServer({ model, args: ["-e", broken, "-e", flaky] });
    try {
      const { thread, warnings } = await withExt.main.request("thread/start", { cwd: withExt.project() });
      assert.deepEqual(
        warnings.map((w) => [w.source, w.path]),
        [["extension", broken]],
      );
      assert.match(warnings[0]!.message, /cannot start/);
      await runTurn(withExt.main, thread.id, "hi");
      const warning = await withExt.main.waitForNotification("warning", (p) => p.threadId === thread.id);
      assert.match(warning.warning.message, /flaky handler/);
      assert.equal(warning.warning.path, flaky);
    } finally {
      await withExt.close();
    }
  });
});
