// Events that replay (docs/protocol.md): seq on a sequenced connection, and thread/resume's afterSeq.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type ReceivedNotification, type TestClient, type TestServer, startServer } from "../support/harness.js";

const TOKEN = "replay-test-token-0123456789abcdef";
let model: ScriptedModelServer;

before(async () => {
  model = await ScriptedModelServer.start();
});
after(async () => {
  await model.close();
});

async function listening(env: Record<string, string> = {}): Promise<{ server: TestServer; url: string }> {
  const server = await startServer({ model, args: ["--listen", "ws://127.0.0.1:0"], env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN, ...env } });
  const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  return { server, url };
}

/** A WebSocket connection initialized with `capabilities.sequenced`. */
async function sequenced(server: TestServer, url: string, label: string): Promise<TestClient> {
  const client = await server.connectWebSocket(url, TOKEN, label);
  await client.client.initialize({ clientInfo: { name: label, version: "0" }, capabilities: { sequenced: true } });
  return client;
}

type Params = { threadId?: string; thread?: { id?: string }; seq?: number; delta?: string };

function about(threadId: string, notifications: readonly ReceivedNotification[]): { method: string; params: Params }[] {
  return notifications
    .map(({ method, params }) => ({ method, params: params as Params }))
    .filter(({ params }) => params?.threadId === threadId || params?.thread?.id === threadId);
}

function seqs(events: readonly { params: Params }[]): number[] {
  return events.map(({ params }) => params.seq ?? Number.NaN);
}

function assertConsecutive(numbers: readonly number[], from: number, what: string): void {
  assert.deepEqual(
    numbers,
    numbers.map((_, index) => from + index),
    `${what}: one more each time, from ${from}`,
  );
}

/** What `client` was sent about `threadId` after the answer to request `id`. */
function afterAnswer(client: TestClient, id: number, threadId: string): { method: string; params: Params }[] {
  return about(threadId, client.notifications.slice(client.notificationsBefore.get(id)));
}

test("a sequenced client gets seq growing by one on a thread it is subscribed to; a client that did not ask gets none", async () => {
  const { server, url } = await listening();
  try {
    const watcher = await sequenced(server, url, "sequenced");
    const { thread } = await server.main.request("thread/start", { cwd: server.project() });
    await watcher.request("thread/resume", { threadId: thread.id });
    const subscribedAt = watcher.notifications.length;
    model.enqueue({ reasoning: ["hm", "m"], text: ["one ", "two ", "three"] });
    await server.main.request("turn/start", { threadId: thread.id, text: "count" });
    await watcher.waitForNotification("turn/completed", (p) => p.threadId === thread.id);
    await server.main.waitForNotification("thread/turn/completed", (p) => p.threadId === thread.id);
    await server.main.request("thread/name/set", { threadId: thread.id, name: "counted" });
    await watcher.waitForNotification("thread/name/updated", (p) => p.name === "counted");

    const seen = about(thread.id, watcher.notifications.slice(subscribedAt));
    assert.ok(seen.length > 10, `a turn's worth of notifications, got ${seen.length}`);
    assert.ok(
      seen.some(({ method }) => method === "thread/turn/completed") && seen.some(({ method }) => method === "thread/status/changed"),
      "the sidebar broadcasts are numbered with the rest",
    );
    assertConsecutive(seqs(seen), seen[0]!.params.seq!, "the subscriber's seq");
    for (const { method, params } of server.main.notifications) {
      assert.ok(params === undefined || !Object.hasOwn(params as object, "seq"), `${method} without seq for a client that did not ask`);
    }
    const plain = await server.main.request("thread/resume", { threadId: thread.id });
    assert.ok(!Object.hasOwn(plain, "replayed"), "no replayed without afterSeq");
  } finally {
    await server.close();
  }
});

test("a client that drops mid-turn resumes with afterSeq on a new connection: what it missed, in order, then the live ones", async () => {
  const { server, url } = await listening();
  try {
    const first = await sequenced(server, url, "first");
    const { thread } = await first.request("thread/start", { cwd: server.project() });
    let release!: () => void;
    model.enqueue({ text: ["one ", "two ", "three ", "four"], pauseAfter: 2, gate: new Promise<void>((resolve) => (release = resolve)) });
    await first.request("turn/start", { threadId: thread.id, text: "count slowly" });
    await first.waitForNotification("item/agentMessage/delta", (p) => p.threadId === thread.id);
    await first.client.close();
    // Sent while nobody who asks for seq is there: exactly what a reconnecting client misses.
    await server.main.request("thread/name/set", { threadId: thread.id, name: "while away" });
    await server.main.waitForNotification("thread/name/updated", (p) => p.name === "while away");

    const lastSeen = Math.max(...seqs(about(thread.id, first.notifications)));
    const second = await sequenced(server, url, "second");
    const resumed = await second.request("thread/resume", { threadId: thread.id, afterSeq: lastSeen });
    assert.equal(resumed.replayed, true);
    release();
    await second.waitForNotification("turn/completed", (p) => p.threadId === thread.id);

    // The answers are to initialize (1) and thread/resume (2).
    const replayedAndLive = afterAnswer(second, 2, thread.id);
    assertConsecutive(seqs(replayedAndLive), lastSeen + 1, "after the answer");
    assert.ok(
      replayedAndLive.some(({ method }) => method === "thread/name/updated"),
      "the rename made while away came again",
    );
    const text = [...about(thread.id, first.notifications), ...replayedAndLive]
      .filter(({ method }) => method === "item/agentMessage/delta")
      .map(({ params }) => params.delta)
      .join("");
    assert.equal(text, "one two three four", "every delta once, none twice");
  } finally {
    await server.close();
  }
});

test("when the ring has moved on, the answer is the snapshot with replayed: false, and nothing is replayed", async () => {
  const { server, url } = await listening({ KNIGHTCODE_REPLAY_EVENTS: "5" });
  try {
    const first = await sequenced(server, url, "first");
    const { thread } = await first.request("thread/start", { cwd: server.project() });
    const lastSeen = Math.max(...seqs(about(thread.id, first.notifications)));
    await first.client.close();
    model.enqueue({ text: ["a", "b", "c", "d", "e", "f", "g", "h"] });
    await server.main.request("turn/start", { threadId: thread.id, text: "many" });
    const { turn } = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id);

    const second = await sequenced(server, url, "second");
    const resumed = await second.request("thread/resume", { threadId: thread.id, afterSeq: lastSeen });
    assert.equal(resumed.replayed, false);
    assert.ok(
      resumed.turns.some((t) => t.id === turn.id && t.status === "completed"),
      "the snapshot has the turn",
    );
    await second.request("thread/name/set", { threadId: thread.id, name: "after" });
    await second.waitForNotification("thread/name/updated", (p) => p.name === "after");
    assert.deepEqual(
      about(thread.id, second.notifications).map(({ method }) => method),
      ["thread/name/updated"],
      "none of the old ones were sent, only the live one",
    );
  } finally {
    await server.close();
  }
});

test("seq goes on after the thread unloads and loads again, and an afterSeq from before the unload is answered with the snapshot", async () => {
  const { server, url } = await listening({ KNIGHTCODE_THREAD_IDLE_MS: "200" });
  try {
    const client = await sequenced(server, url, "sequenced");
    const { thread } = await client.request("thread/start", { cwd: server.project() });
    model.enqueue({ text: "before" });
    await client.request("turn/start", { threadId: thread.id, text: "one" });
    await client.waitForNotification("turn/completed", (p) => p.threadId === thread.id);
    const beforeUnload = Math.max(...seqs(about(thread.id, client.notifications)));
    await client.request("thread/unsubscribe", { threadId: thread.id });
    const unloaded = await client.waitForNotification("thread/status/changed", (p) => p.threadId === thread.id && p.status.type === "notLoaded");
    assert.ok((unloaded.seq ?? 0) > beforeUnload, "the unload's broadcast is numbered after everything before it");

    const resumed = await client.request("thread/resume", { threadId: thread.id, afterSeq: beforeUnload });
    assert.equal(resumed.replayed, false, "the reloaded thread holds nothing from before");
    model.enqueue({ text: "after" });
    await client.request("turn/start", { threadId: thread.id, text: "two" });
    await client.waitForNotification("turn/completed", (p) => p.threadId === thread.id && p.turn.id !== undefined && (p.seq ?? 0) > unloaded.seq!);
    const all = seqs(about(thread.id, client.notifications));
    assert.deepEqual(
      all,
      [...all].sort((a, b) => a - b),
      "never back",
    );
    assert.equal(new Set(all).size, all.length, "never twice");
    const later = await client.request("thread/resume", { threadId: thread.id, afterSeq: beforeUnload });
    assert.equal(later.replayed, false, "an afterSeq from before the unload is never replayed from the new load");
  } finally {
    await server.close();
  }
});
