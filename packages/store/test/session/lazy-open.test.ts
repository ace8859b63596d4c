import assert from "node:assert/strict";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { serializeEntry, serializeHeader } from "../../src/session/format.js";
import { readBranchTail } from "../../src/session/read-page.js";
import { SessionFile } from "../../src/session/session-file.js";
import { checkpointOf, summaryOf } from "../../src/session/summary.js";
import { tempDir, userText } from "./helpers.js";

const dir = tempDir("lazy-open");

const usage = (input: number, output: number) => ({
  input,
  output,
  cacheRead: 1,
  cacheWrite: 0,
  totalTokens: input + output + 1,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 },
});
const reply = (text: string, input = 10, output = 5) =>
  ({
    type: "message",
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      api: "openai-completions",
      provider: "p",
      model: "m",
      usage: usage(input, output),
      stopReason: "stop",
      timestamp: 1,
    },
  }) as never as { type: "message"; message: never };

/** A thread of `turns` turns written through SessionFile, with settings changed along the way. */
async function thread(turns: number): Promise<string> {
  const file = await SessionFile.create({ dir, cwd: dir });
  file.append({ type: "model_change", provider: "p", modelId: "m1" });
  for (let i = 0; i < turns; i++) {
    const start = file.append({ type: "turn_start" });
    file.append({ type: "message", message: userText(`question ${i}`) });
    file.append(reply(`answer ${i}`, 10 + i, 5));
    if (i === 1) file.append({ type: "thread_name", name: "Named early" });
    if (i === turns - 2) file.append({ type: "approval_mode", mode: "autoEdit" });
    file.append({ type: "turn_end", turnId: start.id, status: "completed" });
  }
  file.close();
  return file.path;
}

describe("lazy open", () => {
  test("opens from the newest checkpoint with the same summary as a full read", async () => {
    const path = await thread(30);
    const full = await SessionFile.open(path);
    const expected = full.summary();
    const branch = full.branch();
    full.close();
    assert.equal(expected.name, "Named early");
    assert.equal(expected.approvalMode, "autoEdit");
    assert.equal(expected.firstUserText, "question 0");
    assert.deepEqual(expected.model, { provider: "p", id: "m1" });
    assert.equal(
      expected.usage.input,
      Array.from({ length: 30 }, (_, i) => 10 + i).reduce((a, b) => a + b),
    );

    const lazy = await SessionFile.open(path, { lazy: true });
    assert.equal(lazy.isLoaded, false);
    assert.deepEqual(lazy.summary(), expected);
    assert.equal(lazy.leafId, branch.at(-1)!.id);
    assert.throws(() => lazy.branch(), /not loaded/);
    await lazy.loadBranch();
    assert.deepEqual(lazy.branch(), branch);
    lazy.close();
  });

  test("entries after the checkpoint count, and appends before and during loading join the branch in order", async () => {
    const path = await thread(3);
    // A turn the process died in: no turn_end, but its reply and a rename count.
    const tail = readFileSync(path, "utf8").trim().split("\n");
    let parentId = (JSON.parse(tail.at(-1)!) as { id: string }).id;
    const more = [
      { type: "turn_start", id: "crash0000001", parentId, timestamp: 100 },
      { type: "message", id: "crash0000002", parentId: "crash0000001", timestamp: 101, message: reply("partial", 1000, 1).message },
      { type: "thread_name", id: "crash0000003", parentId: "crash0000002", timestamp: 102, name: "Renamed after" },
    ];
    appendFileSync(path, more.map((e) => serializeEntry(e as never)).join("\n") + "\n");
    parentId = "crash0000003";

    const lazy = await SessionFile.open(path, { lazy: true });
    const summary = lazy.summary();
    assert.equal(summary.name, "Renamed after");
    assert.equal(summary.usage.input, 10 + 11 + 12 + 1000);
    const before = lazy.append({ type: "thinking_level_change", thinkingLevel: "high" });
    assert.equal(before.parentId, parentId);
    const loading = lazy.loadBranch();
    const during = lazy.append({ type: "message", message: userText("while loading") });
    await loading;
    const ids = lazy.branch().map((e) => e.id);
    assert.deepEqual(ids.slice(-5), ["crash0000001", "crash0000002", "crash0000003", before.id, during.id]);
    assert.equal(lazy.summary().thinkingLevel, "high");
    assert.equal(lazy.entryRef(during.id)?.line, readFileSync(path, "utf8").trim().split("\n").length);
    lazy.close();
    const again = await SessionFile.open(path);
    assert.deepEqual(
      again.branch().map((e) => e.id),
      ids,
      "what the lazy owner holds is what the file says",
    );
    again.close();
  });

  test("a transcript without checkpoints is read to its root; a torn tail opens in full", async () => {
    const path = join(dir, "2025-01-01T00-00-00-000Z_6b1f8b2e-1111-4222-8333-444455556666.jsonl");
    const lines = [
      serializeHeader({ type: "session", version: 1, id: "6b1f8b2e-1111-4222-8333-444455556666", cwd: dir, createdAt: "2025-01-01T00:00:00.000Z" }),
    ];
    const entries = [
      { type: "model_change", id: "a00000000001", parentId: null, timestamp: 1, provider: "old", modelId: "m" },
      { type: "turn_start", id: "a00000000002", parentId: "a00000000001", timestamp: 2 },
      { type: "message", id: "a00000000003", parentId: "a00000000002", timestamp: 3, message: userText("from an older version") },
      { type: "turn_end", id: "a00000000004", parentId: "a00000000003", timestamp: 4, turnId: "a00000000002", status: "completed" },
      { type: "turn_start", id: "a00000000005", parentId: "a00000000004", timestamp: 5 },
      { type: "turn_end", id: "a00000000006", parentId: "a00000000005", timestamp: 6, turnId: "a00000000005", status: "completed" },
      { type: "turn_start", id: "a00000000007", parentId: "a00000000006", timestamp: 7 },
      { type: "turn_end", id: "a00000000008", parentId: "a00000000007", timestamp: 8, turnId: "a00000000007", status: "completed" },
    ];
    writeFileSync(path, [...lines, ...entries.map((e) => serializeEntry(e as never))].join("\n") + "\n");
    const tail = await readBranchTail(path);
    assert.deepEqual(tail.summary, summaryOf(entries as never));
    assert.equal(tail.summary.firstUserText, "from an older version");
    assert.equal(tail.leaf?.id, "a00000000008");

    appendFileSync(path, '{"type":"message","id":"torn');
    const file = await SessionFile.open(path, { lazy: true });
    assert.equal(file.isLoaded, true, "a tail that needs repair is read in full");
    assert.deepEqual(file.summary().model, { provider: "old", id: "m" });
    const next = file.append({ type: "turn_start" });
    assert.equal(next.parentId, "a00000000008");
    const end = file.append({ type: "turn_end", turnId: next.id, status: "completed" });
    assert.deepEqual(checkpointOf(end), file.summary(), "the new turn_end carries the checkpoint");
    file.close();
  });
});
