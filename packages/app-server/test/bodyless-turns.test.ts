import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { isBodyless, readBranchPage } from "@knightcode/store/session/read-page";
import { serializeEntry, serializeHeader, type SessionEntry } from "@knightcode/store/session/format";
import { pageForWire, pageReusable, readPage, skipKnownTurns } from "../src/history/page.js";
import { SavedTurnCache } from "../src/history/saved-turns.js";
import { BodylessTurn } from "../src/history/turns.js";
import { PAGE_BUDGET } from "../src/payloads/refs.js";
import { PayloadStore } from "../src/payloads/store.js";

const root = mkdtempSync(join(tmpdir(), "kc-bodyless-"));
let now = 0;
const store = new PayloadStore({ root, ttlMs: 1000, now: () => now });
after(async () => {
  await store.dispose();
  rmSync(root, { recursive: true, force: true });
});

const THREAD = "5b1f3c9e-8a61-4e0f-9f53-2c7d4a1b6e90";
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** A transcript of a small turn, a turn of `calls` tool calls (well over 64 KiB as a turn), and another small turn. */
function transcript(calls: number): string {
  const path = join(root, `${calls}.jsonl`);
  const lines = [serializeHeader({ type: "session", version: 1, id: THREAD, cwd: "/work/p", createdAt: "2025-01-01T00:00:00.000Z" })];
  let parentId: string | null = null;
  let n = 0;
  const add = (fields: Record<string, unknown>) => {
    const id = `e${String(n++).padStart(11, "0")}`;
    lines.push(serializeEntry({ ...fields, id, parentId, timestamp: 1_700_000_000_000 + n } as SessionEntry));
    parentId = id;
    return id;
  };
  const assistant = (content: unknown[], stopReason: string) => ({
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "p",
    model: "m",
    usage,
    stopReason,
    timestamp: 1,
  });
  const small = (text: string) => {
    const start = add({ type: "turn_start" });
    add({ type: "message", message: { role: "user", content: text, timestamp: 1 } });
    add({ type: "message", message: assistant([{ type: "text", text: `re: ${text}` }], "stop") });
    add({ type: "turn_end", turnId: start, status: "completed" });
  };
  small("before");
  const start = add({ type: "turn_start" });
  add({ type: "message", message: { role: "user", content: "read everything", timestamp: 1 } });
  for (let i = 0; i < calls; i++) {
    add({ type: "message", message: assistant([{ type: "toolCall", id: `call_${i}`, name: "read", arguments: { path: `f${i}.txt` } }], "toolUse") });
    add({
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: `call_${i}`,
        toolName: "read",
        content: [{ type: "text", text: `contents of file ${i} `.repeat(4) }],
        isError: false,
        timestamp: 1,
      },
    });
  }
  add({ type: "message", message: assistant([{ type: "text", text: "done" }], "stop") });
  add({ type: "turn_end", turnId: start, status: "completed" });
  small("after");
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

/** The id of the turn_end entry of turn `turnId`. */
function endOf(path: string, turnId: string): string {
  const line = readFileSync(path, "utf8")
    .split("\n")
    .find((l) => l.includes('"type":"turn_end"') && l.includes(`"turnId":"${turnId}"`))!;
  return (JSON.parse(line) as { id: string }).id;
}

describe("spec: History, listings, and large values (a saved turn read past, not parsed)", () => {
  test("a page read with skipTurnBody takes the skipped turn's entries by prefix: same ids and parents, its start and end whole", async () => {
    const path = transcript(300);
    const whole = await readBranchPage(path, { turns: 50 });
    const asked: Array<[string, string]> = [];
    const big = whole.entries.filter((e) => e.type === "turn_start")[1]!.id;
    const skipped = await readBranchPage(path, { turns: 50, chunkSize: 4096, skipTurnBody: (turnId, endId) => (asked.push([turnId, endId]), turnId === big) });
    assert.equal(asked.length, 3, "asked once per turn end");
    assert.deepEqual(
      skipped.entries.map((e) => [e.id, e.parentId, e.type]),
      whole.entries.map((e) => [e.id, e.parentId, e.type]),
    );
    const bodyless = skipped.entries.filter(isBodyless);
    assert.equal(bodyless.length, 1 + 300 * 2 + 1, "the big turn's body, and only it");
    for (const entry of skipped.entries.filter((e) => !isBodyless(e)))
      assert.deepEqual(
        entry,
        whole.entries.find((e) => e.id === entry.id),
      );
    assert.deepEqual(skipped.next, whole.next);
    assert.deepEqual([...skipped.turnStarts], [...whole.turnStarts]);
  });

  test("a large saved turn sent once is read past the next time and handed out with the same reference; once that reference is gone, the page is read whole again", async () => {
    const path = transcript(400);
    const saved = new SavedTurnCache();
    const first = pageForWire(await readPage(path, THREAD, undefined, skipKnownTurns(saved, THREAD)), THREAD, store, PAGE_BUDGET, { saved });
    const big = first.turns[1]!;
    assert.ok(big.payloadRef, "the big turn travels as a reference");
    const again = await readPage(path, THREAD, undefined, skipKnownTurns(saved, THREAD));
    assert.ok(again.entries.filter(isBodyless).length > 800, "its body was not parsed");
    assert.equal(pageReusable(again, THREAD, store, saved, undefined), true);
    const second = pageForWire(again, THREAD, store, PAGE_BUDGET, { saved });
    assert.deepEqual(second, first);

    now += 5000;
    await store.sweep();
    const stale = await readPage(path, THREAD, undefined, skipKnownTurns(saved, THREAD));
    assert.ok(stale.entries.some(isBodyless), "the cache still names the turn");
    assert.equal(pageReusable(stale, THREAD, store, saved, undefined), false);
    assert.throws(() => pageForWire(stale, THREAD, store, PAGE_BUDGET, { saved }), BodylessTurn);
    const rebuilt = pageForWire(await readPage(path, THREAD, undefined), THREAD, store, PAGE_BUDGET, { saved });
    assert.notEqual(rebuilt.turns[1]!.payloadRef!.id, big.payloadRef!.id);
    assert.equal(rebuilt.turns[1]!.payloadRef!.bytes, big.payloadRef!.bytes, "the same turn, spooled again");
    assert.ok(saved.holds(THREAD, big.id, readFileSync(path, "utf8").includes(big.id) ? endOf(path, big.id) : ""), "and kept again");
  });
});
