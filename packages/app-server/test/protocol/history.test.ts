import assert from "node:assert/strict";
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
  cwd = server.project({ "a.txt": "alpha\n" });
});
after(async () => {
  await server.close();
  await model.close();
});

async function turn(client: TestClient, threadId: string, text: string, ...replies: Parameters<ScriptedModelServer["enqueue"]>) {
  model.enqueue(...replies);
  const mark = client.notifications.length;
  await client.request("turn/start", { threadId, text });
  const started = await client.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  await client.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id, { timeoutMs: 20_000 });
  return started.turn.id;
}

/** The size of the line a response took on the wire (the server writes compact JSON). */
function lineBytes(client: TestClient, id: string | number): number {
  return Buffer.byteLength(JSON.stringify(client.rawResponses.get(id)));
}

describe("spec: History, listings, and large values (payload references)", () => {
  test("a large tool output travels as outputRef, live and in history, and reads back exactly", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
    const mark = server.main.notifications.length;
    // 200 KB of output: over the 16 KiB field threshold.
    const command = "node -e \"process.stdout.write('x'.repeat(200000) + '\\\\nend')\"";
    await turn(server.main, thread.id, "big output", { toolCalls: [{ id: "call_big", name: "bash", arguments: { command } }] }, { text: "done" });
    const live = await server.main.waitForNotification("item/completed", (p) => p.item.id === "call_big", { since: mark });
    const liveItem = live.item as { output?: string; outputRef?: { id: string; bytes: number } };
    assert.equal(liveItem.output, undefined);
    assert.ok(liveItem.outputRef && liveItem.outputRef.bytes > 16 * 1024, JSON.stringify(live.item).slice(0, 500));
    const resolved = (await server.main.client.resolveItem(live.item as never)) as { output: string };
    assert.match(resolved.output, /x{16384}/);
    assert.match(resolved.output, /end/);
    const resumed = await server.main.request("thread/resume", { threadId: thread.id });
    const saved = resumed.turns.at(-1)!.items!.find((i) => i.id === "call_big") as { outputRef?: { bytes: number } };
    assert.ok(saved.outputRef, "history carries the reference too");
    const again = (await server.main.client.resolveItem(saved as never)) as { output: string };
    assert.equal(again.output, resolved.output);
  });

  test("a history page stays within 1 MiB: the oldest turns move to the next page, none lost or repeated", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) ids.push(await turn(server.main, thread.id, `turn ${i}`, { text: `${i}:` + "y".repeat(60_000) }));
    await server.main.request("thread/unsubscribe", { threadId: thread.id });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const id = `resume-page-${pages}`;
      const answer = await server.main.rawRequest("thread/resume", { threadId: thread.id, ...(cursor ? { cursor } : {}) }, id);
      assert.ok(answer.result, JSON.stringify(answer.error));
      assert.ok(lineBytes(server.main, id) <= 1024 * 1024, `page ${pages} is ${lineBytes(server.main, id)} bytes`);
      const result = answer.result as { turns: { id: string }[]; nextCursor?: string };
      assert.ok(result.turns.length > 0);
      seen.unshift(...result.turns.map((t) => t.id));
      cursor = result.nextCursor;
      pages++;
    } while (cursor);
    assert.ok(pages >= 2, "24 turns of 60 KB do not fit one page");
    assert.deepEqual(seen, ids, "every turn once, in order");
  });

  test("a turn over 64 KiB travels whole as a payloadRef and resolves to its items", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    // Two items of 40 KB: each fits, the turn does not.
    await turn(server.main, thread.id, "two parts", { reasoning: "r".repeat(40_000), text: "t".repeat(40_000) });
    await turn(server.main, thread.id, "small", { text: "ok" });
    const resumed = await server.main.request("thread/resume", { threadId: thread.id });
    const [big, small] = resumed.turns.slice(-2);
    assert.ok(big!.payloadRef, "the big turn is a reference");
    assert.equal(big!.items, undefined);
    assert.ok(small!.items, "the small one stays inline");
    const whole = await server.main.client.resolveTurn(big!);
    const texts = whole.items!.map((i) => JSON.stringify(i));
    assert.ok(texts.some((t) => t.includes("r".repeat(40_000))));
    assert.ok(texts.some((t) => t.includes("t".repeat(40_000))));
  });

  test("payload/read refuses ids that try a path, unknown ids and bad offsets", async () => {
    for (const id of ["../../etc/passwd", "/etc/passwd", "0".repeat(32), "..", "a/b"]) {
      await assert.rejects(
        server.main.request("payload/read", { id, offset: 0 }),
        (e: unknown) => e instanceof AppServerError && e.code === "invalidParams",
        id,
      );
    }
    const bad = await server.main.rawRequest("payload/read", { id: "x", offset: -1 });
    assert.equal((bad.error as { code: string }).code, "invalidParams");
  });
});

describe("spec: thread/read of a running turn", () => {
  test("on the server that runs it, the running turn reads as inProgress with what it streamed so far, then as it ended", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    let release!: () => void;
    model.enqueue({ text: ["half ", "done"], pauseAfter: 2, gate: new Promise<void>((resolve) => (release = resolve)) });
    const mark = server.main.notifications.length;
    try {
      await server.main.request("turn/start", { threadId: thread.id, text: "take your time" });
      const { turn } = await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
      await server.main.waitForNotification("item/agentMessage/delta", (p) => p.turnId === turn.id, { since: mark });
      const running = (await server.main.request("thread/read", { threadId: thread.id })).turns.at(-1)!;
      assert.equal(running.id, turn.id);
      assert.equal(running.status, "inProgress", JSON.stringify(running));
      assert.equal(running.completedAt, undefined);
      const said = (running.items ?? []).map((item) => ("text" in item ? `${item.type}:${item.text}` : item.type));
      assert.ok(said.includes("userMessage:take your time"), JSON.stringify(said));
      release();
      await server.main.waitForNotification("turn/completed", (p) => p.turn.id === turn.id, { since: mark, timeoutMs: 20_000 });
      const ended = (await server.main.request("thread/read", { threadId: thread.id })).turns.at(-1)!;
      assert.equal(ended.id, turn.id);
      assert.equal(ended.status, "completed");
      const answered = (ended.items ?? []).map((item) => ("text" in item ? `${item.type}:${item.text}` : item.type));
      assert.ok(answered.includes("agentMessage:half done"), JSON.stringify(answered));
    } finally {
      release();
    }
  });
});
