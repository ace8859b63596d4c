import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { HistoryItem, Turn } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, type TestClient } from "../support/harness.js";

const TOKEN = "giant-turn-test-token-0123456789abcdef";
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Rounds of parallel reads: 2,000 items of about 200 bytes, well over the 64 KiB a turn may take inline. */
const ROUNDS = 2;
const PER_ROUND = 1000;

/** A tool that calls other tools: its calls are the turn's nested items. */
const BATCH_EXTENSION = `
export default function (kc: any) {
  kc.registerTool({
    name: "batch",
    description: "Runs several tool calls",
    parameters: { type: "object", properties: { calls: { type: "array" } }, required: ["calls"] },
    async execute(_id: string, params: { calls: { name: string; params: unknown }[] }, signal: AbortSignal, _update: unknown, ctx: any) {
      const lines = [];
      for (const call of params.calls) lines.push((await ctx.runTool(call.name, call.params, signal)).isError ? "failed" : "ok");
      return { content: [{ type: "text", text: lines.join(",") }], details: {} };
    },
  });
}
`;

let model: ScriptedModelServer;
let server: TestServer;
let ws: TestClient;
let cwd: string;
let extensionDir: string;

before(async () => {
  model = await ScriptedModelServer.start();
  extensionDir = mkdtempSync(join(tmpdir(), "kc-giant-ext-"));
  writeFileSync(join(extensionDir, "batch.ts"), BATCH_EXTENSION);
  server = await startServer({
    model,
    // A context window no number of reads fills: the turn is about items, not compaction.
    modelsJson: model.modelsJson({ models: [{ id: "scripted-model", contextWindow: 100_000_000 }] }),
    args: ["-e", join(extensionDir, "batch.ts"), "--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN],
  });
  const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  ws = await server.connectWebSocket(url, TOKEN);
  await ws.initialize();
  cwd = server.project({ "a.txt": "alpha\n", "b.txt": "beta\n" });
});
after(async () => {
  await server.close();
  await model.close();
  rmSync(extensionDir, { recursive: true, force: true });
});

/** A payload read whole through payload/read, chunk by chunk. */
async function payloadJson(client: TestClient, ref: { id: string; bytes: number }): Promise<unknown> {
  const parts: Buffer[] = [];
  for (let offset = 0; ; ) {
    const chunk = await client.request("payload/read", { id: ref.id, offset });
    parts.push(Buffer.from(chunk.data, "base64"));
    if (chunk.eof) break;
    offset = chunk.nextOffset!;
  }
  const data = Buffer.concat(parts);
  assert.equal(data.length, ref.bytes);
  return JSON.parse(data.toString("utf8"));
}

async function itemsOf(client: TestClient, turn: Turn): Promise<HistoryItem[]> {
  assert.ok(turn.payloadRef, `turn ${turn.id} travels as a payloadRef`);
  assert.equal(turn.items, undefined);
  const whole = (await payloadJson(client, turn.payloadRef)) as Turn;
  assert.equal(whole.id, turn.id);
  return whole.items!;
}

/** Top-level items have indexes 0, 1, 2, ... in order; each nested call follows its parent or a sibling. */
function assertSnapshotOrder(items: readonly HistoryItem[]): void {
  const top = items.filter((item) => !("parentItemId" in item) || item.parentItemId === undefined);
  assert.deepEqual(
    top.map((item) => item.index),
    top.map((_, i) => i),
  );
  items.forEach((item, at) => {
    const parent = "parentItemId" in item ? item.parentItemId : undefined;
    if (parent === undefined) return;
    const before = items[at - 1]!;
    assert.ok(before.id === parent || ("parentItemId" in before && before.parentItemId === parent), `${item.id} follows its parent ${parent}`);
  });
}

describe("spec: Threads and turns (a running turn of thousands of items)", () => {
  let threadId: string;
  let turnId: string;
  let release!: () => void;
  let liveTopLevel: string[] = [];

  test("resumed from a second connection: runningTurn is a payloadRef holding every item in order, nested calls after their parent; later items arrive as notifications", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
    threadId = thread.id;
    let n = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const toolCalls: { id: string; name: string; arguments: unknown }[] = Array.from({ length: PER_ROUND }, () => ({
        id: `call_${n++}`,
        name: "read",
        arguments: { path: "a.txt" },
      }));
      if (round === 0) {
        const calls = [0, 1, 2].map(() => ({ name: "read", params: { path: "b.txt" } }));
        toolCalls.splice(500, 0, { id: "call_batch", name: "batch", arguments: { calls } });
      }
      model.enqueue({ toolCalls });
    }
    model.enqueue(
      {
        text: ["part one ", "part two"],
        toolCalls: [{ id: "call_late", name: "read", arguments: { path: "a.txt" } }],
        pauseAfter: 2,
        gate: new Promise<void>((resolve) => (release = resolve)),
      },
      { text: "all read" },
    );
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId, text: "read everything" });
    turnId = (await server.main.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark })).turn.id;
    await server.main.waitForNotification("item/agentMessage/delta", (p) => p.turnId === turnId && p.delta === "part one ", {
      since: mark,
      timeoutMs: 120_000,
    });

    const started = server.main
      .notificationsOf("item/started")
      .filter((p) => p.turnId === turnId)
      .map((p) => p.item);
    const resumed = await ws.request("thread/resume", { threadId });
    assert.ok(Buffer.byteLength(JSON.stringify(resumed)) < MAX_RESPONSE_BYTES);
    assert.equal(
      resumed.turns.some((turn) => turn.id === turnId),
      false,
      "the running turn is not also in history",
    );
    const running = resumed.runningTurn!;
    assert.equal(running.id, turnId);
    assert.equal(running.status, "inProgress");
    const items = await itemsOf(ws, running);
    // Every item started so far, none twice: the user's message, the reads, the batch and its calls, the answer so far.
    assert.equal(items.length, ROUNDS * PER_ROUND + 1 + 3 + 2);
    assert.deepEqual(new Set(items.map((item) => item.id)), new Set(started.map((item) => item.id)));
    assertSnapshotOrder(items);
    const batchAt = items.findIndex((item) => item.id === "call_batch");
    assert.deepEqual(
      items.slice(batchAt + 1, batchAt + 4).map((item) => ("parentItemId" in item ? item.parentItemId : undefined)),
      ["call_batch", "call_batch", "call_batch"],
    );
    assert.ok(items.filter((item) => item.type === "toolCall" && item.id !== "call_batch").every((item) => "status" in item && item.status === "completed"));
    const answer = items.at(-1) as HistoryItem & { text?: string };
    assert.equal(answer.type, "agentMessage");
    assert.equal(answer.text, "part one ");

    // Resumed again with nothing changed: the same content.
    await ws.request("thread/unsubscribe", { threadId });
    const again = await ws.request("thread/resume", { threadId });
    assert.deepEqual(await itemsOf(ws, again.runningTurn!), items);

    // What happens after the resume reaches the second connection as notifications.
    const wsMark = ws.notifications.length;
    release();
    const done = await ws.waitForNotification("turn/completed", (p) => p.turn.id === turnId, { since: wsMark, timeoutMs: 60_000 });
    assert.equal(done.turn.status, "completed");
    const completed = ws.notifications
      .slice(wsMark)
      .filter((n) => n.method === "item/completed")
      .map((n) => (n.params as { item: HistoryItem }).item);
    const answered = completed.find((item) => item.id === answer.id) as HistoryItem & { text?: string };
    assert.equal(answered.text, "part one part two");
    assert.ok(completed.some((item) => item.id === "call_late"));
    assert.ok(completed.some((item) => item.type === "agentMessage" && (item as { text?: string }).text === "all read"));
    liveTopLevel = [...items, ...completed]
      .filter((item) => !("parentItemId" in item) || item.parentItemId === undefined)
      .filter((item, at, all) => all.findIndex((other) => other.id === item.id) === at)
      .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
      .map((item) => item.id);
    await ws.request("thread/unsubscribe", { threadId });
  });

  test("saved, the same turn through thread/read and thread/resume: the page stays under 1 MiB and the turn is a payloadRef with every item", async () => {
    assert.ok(threadId, "the running turn's test ran first");
    const read = await ws.request("thread/read", { threadId });
    assert.ok(Buffer.byteLength(JSON.stringify(read)) < MAX_RESPONSE_BYTES);
    const savedTurn = read.turns.at(-1)!;
    assert.equal(savedTurn.id, turnId);
    assert.equal(savedTurn.status, "completed");
    const saved = await itemsOf(ws, savedTurn);
    // History keeps the top-level items the live stream showed, with the same ids and order; nested calls are live only.
    assert.deepEqual(
      saved.map((item) => item.id),
      liveTopLevel,
    );
    assertSnapshotOrder(saved);
    // Read again: the saved turn, which cannot change, is handed out with the same reference.
    const reread = await ws.request("thread/read", { threadId });
    assert.deepEqual(reread.turns.at(-1), savedTurn);

    const resumed = await ws.request("thread/resume", { threadId });
    assert.ok(Buffer.byteLength(JSON.stringify(resumed)) < MAX_RESPONSE_BYTES);
    assert.equal(resumed.runningTurn, undefined);
    assert.deepEqual(await itemsOf(ws, resumed.turns.at(-1)!), saved);
    await ws.request("thread/unsubscribe", { threadId });
    server.main.assertNoSchemaViolations();
    ws.assertNoSchemaViolations();
  });

  test("while a turn runs, resume's history page is the one a read from the leaf shows, less the running turn, with the same cursor", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    const saved = 52; // more than a page of 50 turns
    for (let i = 0; i < saved; i++) {
      model.enqueue({ text: `answer ${i}` });
      const mark = server.main.notifications.length;
      await server.main.request("turn/start", { threadId: thread.id, text: `question ${i}` });
      await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
    }
    let open!: () => void;
    model.enqueue({ text: ["held ", "open"], pauseAfter: 2, gate: new Promise<void>((resolve) => (open = resolve)) });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "hold" });
    const running = (await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark })).turn.id;
    await server.main.waitForNotification("item/agentMessage/delta", (p) => p.turnId === running, { since: mark });

    const read = await ws.request("thread/read", { threadId: thread.id });
    const resumed = await ws.request("thread/resume", { threadId: thread.id });
    assert.equal(resumed.runningTurn?.id, running);
    assert.equal(read.turns.at(-1)!.id, running);
    assert.deepEqual(
      resumed.turns.map((turn) => turn.id),
      read.turns.slice(0, -1).map((turn) => turn.id),
    );
    assert.equal(resumed.turns.length, 49);
    assert.ok(resumed.nextCursor);
    assert.equal(resumed.nextCursor, read.nextCursor);
    const older = await ws.request("thread/resume", { threadId: thread.id, cursor: resumed.nextCursor });
    assert.deepEqual(
      older.turns.map((turn) => (turn.items![0] as { text?: string }).text),
      ["question 0", "question 1", "question 2"],
    );
    assert.equal(older.nextCursor, undefined);
    const wsMark = ws.notifications.length;
    open();
    await ws.waitForNotification("turn/completed", (p) => p.turn.id === running, { since: wsMark });
    await ws.request("thread/unsubscribe", { threadId: thread.id });
  });
});
