import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { HistoryItem } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer } from "../support/harness.js";

/**
 * The model's stream however the network cuts it. The server splits the
 * bytes into events itself (agent/src/run/sse-split.ts, which the build puts
 * in the SDKs' place, see scripts/lib/sse-chunks.mjs): many events in one
 * read, an event, its blank line or a UTF-8 character across two reads, must
 * all give back the reply word for word; an event that never ends fails the
 * turn instead of filling the server's memory.
 */

let model: ScriptedModelServer;
let server: TestServer;
let cwd: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model });
  cwd = server.project({ "README.md": "# wire\n" });
});
after(async () => {
  await server.close();
  await model.close();
});

/** Pieces with characters of two, three and four UTF-8 bytes, so that a cut falls inside them. */
function pieces(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${i} é漢🙂${i % 7 === 0 ? "\n" : " "}`);
}

/** Runs one turn answered by `text` on the wire in pieces of `wireBytes`; returns its deltas joined and its saved answer. */
async function answerOver(text: string[], wireBytes: number): Promise<{ streamed: string; saved: string }> {
  const { thread } = await server.main.request("thread/start", { cwd });
  model.enqueue({ text, wireBytes });
  const mark = server.main.notifications.length;
  await server.main.request("turn/start", { threadId: thread.id, text: "answer" });
  const { turn } = await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
  const completed = await server.main.waitForNotification("turn/completed", (p) => p.turn.id === turn.id, { since: mark, timeoutMs: 60_000 });
  assert.equal(completed.turn.status, "completed");
  const streamed = server.main
    .notificationsOf("item/agentMessage/delta")
    .filter((p) => p.turnId === turn.id)
    .map((p) => p.delta)
    .join("");
  const { turns } = await server.main.request("thread/read", { threadId: thread.id });
  const items = turns.find((t) => t.id === turn.id)?.items ?? [];
  const saved = items
    .filter((item): item is Extract<HistoryItem, { type: "agentMessage" }> => item.type === "agentMessage")
    .map((item) => item.text)
    .join("");
  return { streamed, saved };
}

describe("the model's stream, cut anywhere by the network", () => {
  const cases: [string, number, number][] = [
    ["the whole stream of 3,000 events in one write: many events in every read", 3000, Number.POSITIVE_INFINITY],
    ["pieces of 7 bytes: events, blank lines and characters cut across reads", 400, 7],
    ["pieces of one byte", 40, 1],
  ];
  for (const [name, count, wireBytes] of cases) {
    test(name, async () => {
      const text = pieces(count);
      const { streamed, saved } = await answerOver(text, wireBytes);
      assert.equal(streamed, text.join(""));
      assert.equal(saved, text.join(""));
    });
  }
});

describe("a model's stream that never ends an event", () => {
  test("past 64 MiB the turn fails, saying why, without a retry, and the server serves on", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    const asked = model.requests.length;
    model.enqueue({ text: ["never"], unendingEvent: true });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "answer" });
    const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark, timeoutMs: 120_000 });
    assert.equal(done.turn.status, "failed");
    assert.deepEqual(done.turn.error, {
      message: "an event in the model's stream passed 64 MiB without ending; the stream was stopped",
      kind: "other",
    });
    assert.equal(model.requests.length, asked + 1, "a stream the server refused is not asked again");
    // The thread takes the next turn.
    const { streamed } = await answerOver(pieces(3), 5);
    assert.equal(streamed, pieces(3).join(""));
  });
});
