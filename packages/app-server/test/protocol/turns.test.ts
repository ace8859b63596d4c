import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppServerError } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, type TestClient } from "../support/harness.js";

let model: ScriptedModelServer;
let server: TestServer;
let cwd: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model });
  cwd = server.project({ "README.md": "# demo\nhello from the readme\n" });
});
after(async () => {
  await server.close();
  await model.close();
});

async function newThread(client: TestClient = server.main, params: Record<string, unknown> = {}) {
  return client.request("thread/start", { cwd, ...params } as never);
}

/** Waits for the turn's completion and returns every notification of that turn, in order. */
async function turnNotifications(client: TestClient, threadId: string, turnId: string) {
  await client.waitForNotification("turn/completed", (p) => p.turn.id === turnId, { timeoutMs: 20_000 });
  return client.notifications.filter((n) => {
    const params = n.params as { threadId?: string; turnId?: string; turn?: { id: string } };
    return params.threadId === threadId && (params.turnId === turnId || params.turn?.id === turnId);
  });
}

describe("spec: Threads and turns (thread/start, model/list)", () => {
  test("thread/start answers {thread, warnings, ui}; the session file exists at once", async () => {
    const { thread, warnings, ui } = await newThread();
    assert.match(thread.id, /^[0-9a-f-]{36}$/);
    assert.equal(thread.cwd, cwd);
    assert.equal(thread.status.type, "idle");
    assert.deepEqual(thread.workspace, { mode: "local" });
    assert.deepEqual(thread.model, { provider: "scripted", id: "scripted-model" });
    assert.equal(thread.approvalMode, "ask");
    assert.ok(!Number.isNaN(Date.parse(thread.createdAt)));
    assert.ok(thread.sessionFile && existsSync(thread.sessionFile));
    assert.deepEqual(warnings, []);
    assert.deepEqual(ui, { statuses: [], workingVisible: true, widgets: [] });
  });

  test("a cwd that is not an existing directory is invalidParams", async () => {
    for (const bad of [join(cwd, "missing"), "relative/dir", join(cwd, "README.md")]) {
      const answer = await server.main.rawRequest("thread/start", { cwd: bad });
      assert.equal(answer.error?.code, "invalidParams", bad);
      assert.match(answer.error!.message, /params\.cwd/);
    }
  });

  test("model/list reports thinking levels, windows and prices; a non-reasoning model offers only off", async () => {
    const { models } = await server.main.request("model/list", {});
    const plain = models.find((m) => m.provider === "scripted" && m.id === "scripted-model")!;
    const reasoner = models.find((m) => m.id === "scripted-reasoner")!;
    assert.deepEqual(plain.thinkingLevels, ["off"]);
    assert.ok(reasoner.thinkingLevels.includes("high"));
    assert.equal(plain.contextWindow, 128_000);
    assert.equal(plain.available, true);
    assert.deepEqual(plain.cost, { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 0 });
  });

  test("thread/start with a model and a level it does not offer is refused before anything is written", async () => {
    const unknown = await server.main.rawRequest("thread/start", { cwd, model: { provider: "scripted", id: "nope" } });
    assert.equal(unknown.error?.code, "invalidParams");
    const level = await server.main.rawRequest("thread/start", { cwd, model: { provider: "scripted", id: "scripted-model" }, thinkingLevel: "high" });
    assert.equal(level.error?.code, "invalidParams");
    const ok = await newThread(server.main, { model: { provider: "scripted", id: "scripted-reasoner" }, thinkingLevel: "high", approvalMode: "autoEdit" });
    assert.equal(ok.thread.thinkingLevel, "high");
    assert.equal(ok.thread.approvalMode, "autoEdit");
  });
});

describe("spec: Threads and turns (a plain text turn)", () => {
  test("notifications arrive in the specified order and item/completed replaces what streamed", async () => {
    const { thread } = await newThread();
    const mark = server.main.notifications.length;
    model.enqueue({ text: ["Hel", "lo ", "world"], usage: { input: 30, output: 3 } });
    const started = await server.main.request("turn/start", {
      threadId: thread.id,
      text: "Explain",
      requestId: "client-start-1",
      clientMessageId: "optimistic-1",
    });
    assert.deepEqual(started, { status: "started", threadId: thread.id, requestId: "client-start-1" });
    const turnStarted = await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
    assert.equal(turnStarted.requestId, "client-start-1");
    const turnId = turnStarted.turn.id;
    const sequence = (await turnNotifications(server.main, thread.id, turnId)).map((n) => {
      const item = (n.params as { item?: { type: string } }).item;
      return item ? `${n.method}:${item.type}` : n.method;
    });
    assert.deepEqual(
      sequence.filter((m) => m !== "thread/tokenUsage/updated" && m !== "thread/turn/completed"),
      [
        "turn/started",
        "item/started:userMessage",
        "item/completed:userMessage",
        "item/started:agentMessage",
        "item/agentMessage/delta",
        "item/agentMessage/delta",
        "item/agentMessage/delta",
        "item/completed:agentMessage",
        "turn/completed",
      ],
    );
    const items = server.main
      .notificationsOf("item/completed")
      .filter((p) => p.turnId === turnId)
      .map((p) => p.item as Record<string, any>);
    assert.equal(items[0]!.text, "Explain");
    assert.equal(items[0]!.clientMessageId, "optimistic-1");
    assert.equal(items[1]!.text, "Hello world");
    assert.deepEqual(
      items.map((i) => i.index),
      [0, 1],
    );
    assert.ok(items[1]!.startedAt > 1_600_000_000_000 && items[1]!.completedAt >= items[1]!.startedAt, "Unix milliseconds");
    const completed = server.main.notificationsOf("turn/completed").find((p) => p.turn.id === turnId)!;
    assert.equal(completed.turn.status, "completed");
    assert.equal(completed.turn.items, undefined, "a summary without items");
    assert.ok(completed.turn.completedAt! >= completed.turn.startedAt);
    const usage = server.main.notificationsOf("thread/tokenUsage/updated").find((p) => p.turnId === turnId)!;
    assert.deepEqual(
      { input: usage.usage.input, output: usage.usage.output, contextTokens: usage.usage.contextTokens },
      { input: 30, output: 3, contextTokens: 33 },
    );
    const statuses = server.main
      .notificationsOf("thread/status/changed")
      .filter((p) => p.threadId === thread.id)
      .map((p) => p.status.type);
    assert.deepEqual(statuses.slice(-2), ["active", "idle"]);
  });

  test("reasoning streams as item/reasoning/delta before the answer", async () => {
    const { thread } = await newThread(server.main, { model: { provider: "scripted", id: "scripted-reasoner" } });
    model.enqueue({ reasoning: ["let me ", "think"], text: "answer" });
    await server.main.request("turn/start", { threadId: thread.id, text: "think hard" });
    const turnId = (await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id)).turn.id;
    const all = await turnNotifications(server.main, thread.id, turnId);
    const methods = all.map((n) => n.method);
    assert.ok(methods.indexOf("item/reasoning/delta") < methods.indexOf("item/agentMessage/delta"));
    const reasoning = all.find((n) => n.method === "item/completed" && (n.params as { item: { type: string } }).item.type === "reasoning");
    assert.equal((reasoning!.params as { item: { text: string } }).item.text, "let me think");
  });

  test("a second start while a turn runs is turnInProgress", async () => {
    const { thread } = await newThread();
    let release!: () => void;
    model.enqueue({ text: ["a", "b"], pauseAfter: 1, gate: new Promise<void>((r) => (release = r)) });
    await server.main.request("turn/start", { threadId: thread.id, text: "one" });
    const second = await server.main.request("turn/start", { threadId: thread.id, text: "two" }).catch((e: unknown) => e);
    assert.ok(second instanceof AppServerError && second.code === "turnInProgress");
    release();
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id);
  });

  test("a failed turn carries {message, kind}, its message bounded to 2,000 characters", async () => {
    const { thread } = await newThread();
    model.enqueue({ status: 401, body: { error: { message: "Invalid API key " + "x".repeat(5000) } } });
    await server.main.request("turn/start", { threadId: thread.id, text: "x" });
    const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id);
    assert.equal(done.turn.status, "failed");
    assert.equal(done.turn.error?.kind, "auth");
    assert.ok(done.turn.error!.message.length <= 2000);
    assert.match(done.turn.error!.message, /Invalid API key/);
  });

  test("tool calls become toolCall items with input, output and status", async () => {
    const { thread } = await newThread(server.main, { approvalMode: "fullAccess" });
    model.enqueue(
      {
        toolCalls: [
          { id: "call_read", name: "read", arguments: { path: "README.md" } },
          { id: "call_missing", name: "read", arguments: { path: "nope.md" } },
        ],
      },
      { text: "read it" },
    );
    await server.main.request("turn/start", { threadId: thread.id, text: "read the readme" });
    const turnId = (await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id)).turn.id;
    const all = await turnNotifications(server.main, thread.id, turnId);
    const done = (id: string) =>
      all.find((n) => n.method === "item/completed" && (n.params as { item: { id: string } }).item.id === id)!.params as { item: Record<string, any> };
    const ok = done("call_read").item;
    assert.equal(ok.type, "toolCall");
    assert.equal(ok.name, "read");
    assert.deepEqual(ok.input, { path: "README.md" });
    assert.equal(ok.status, "completed");
    assert.match(ok.output, /hello from the readme/);
    assert.equal(done("call_missing").item.status, "failed");
    assert.ok(all.some((n) => n.method === "item/started" && (n.params as { item: { id: string; status: string } }).item.status === "inProgress"));
  });

  test("write reports fileChanges with a diff", async () => {
    const { thread } = await newThread(server.main, { approvalMode: "fullAccess" });
    model.enqueue({ toolCalls: [{ id: "call_write", name: "write", arguments: { path: "notes.txt", content: "one\ntwo\n" } }] }, { text: "done" });
    await server.main.request("turn/start", { threadId: thread.id, text: "write notes" });
    const item = await server.main.waitForNotification("item/completed", (p) => p.item.id === "call_write");
    const changes = (item.item as { fileChanges?: { path: string; kind: string; diff?: string }[] }).fileChanges!;
    assert.equal(changes[0]!.path, "notes.txt");
    assert.equal(changes[0]!.kind, "add");
    assert.match(changes[0]!.diff!, /\+one/);
    assert.equal(readFileSync(join(cwd, "notes.txt"), "utf8"), "one\ntwo\n");
    // The turn's last model request ("done") must not reach the next test's count of requests.
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id);
  });
});

describe("spec: Threads and turns (inputs)", () => {
  const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

  test("images: an inline PNG and an absolute path reach the model; bad ones are invalidParams", async () => {
    const { thread } = await newThread();
    const path = join(cwd, "shot.png");
    writeFileSync(path, PNG);
    model.enqueue({ text: "nice picture" });
    const before = model.requests.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "look", images: [{ path }, { mimeType: "image/png", data: PNG.toString("base64") }] });
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id);
    const content = JSON.stringify(model.requests[before]!.body.messages);
    assert.equal(content.split("data:image/png;base64").length - 1, 2);
    writeFileSync(join(cwd, "not-image.png"), "plain text");
    const bad: [unknown, RegExp][] = [
      [{ path: "relative.png" }, /absolute/],
      [{ path: join(cwd, "missing.png") }, /does not exist/],
      [{ path: cwd }, /not a regular file/],
      [{ path: join(cwd, "not-image.png") }, /not a PNG/],
      [{ mimeType: "image/jpeg", data: PNG.toString("base64") }, /image\/png image, not image\/jpeg/],
      [{ mimeType: "image/png", data: "@@@" }, /not base64/],
      [{ mimeType: "image/tiff", data: "AAAA" }, /mimeType/],
    ];
    for (const [image, message] of bad) {
      const answer = await server.main.rawRequest("turn/start", { threadId: thread.id, text: "x", images: [image] });
      assert.equal(answer.error?.code, "invalidParams", JSON.stringify(image));
      assert.match(answer.error!.message, message);
    }
  });

  test("an image file over 20 MiB is refused", async () => {
    const { thread } = await newThread();
    const big = join(cwd, "big.png");
    writeFileSync(big, Buffer.concat([PNG, Buffer.alloc(20 * 1024 * 1024)]));
    const answer = await server.main.rawRequest("turn/start", { threadId: thread.id, text: "x", images: [{ path: big }] });
    assert.equal(answer.error?.code, "invalidParams");
    assert.match(answer.error!.message, /limited to/);
  });

  test("a clientMessageId outside 1-128 characters is invalidParams", async () => {
    const { thread } = await newThread();
    for (const id of ["", "x".repeat(129)]) {
      const answer = await server.main.rawRequest("turn/start", { threadId: thread.id, text: "x", clientMessageId: id });
      assert.equal(answer.error?.code, "invalidParams");
    }
  });

  test("a thread that is not loaded is threadNotFound", async () => {
    const answer = await server.main.rawRequest("turn/start", { threadId: "00000000-0000-4000-8000-000000000000", text: "x" });
    assert.equal(answer.error?.code, "threadNotFound");
  });
});
