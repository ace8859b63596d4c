import assert from "node:assert/strict";
import { appendFileSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { isKnownEntry, parseEntryLine, serializeEntry, type NewEntry, type SessionEntry } from "../../src/session/format.js";
import { forkSession } from "../../src/session/fork.js";
import { readSession } from "../../src/session/read.js";
import { scanSession } from "../../src/session/scan.js";
import { SessionFile } from "../../src/session/session-file.js";
import { assistantText, tempDir, toolResult, userText } from "./helpers.js";

const dir = tempDir("format");

/** One of every kind, with optional fields present where a kind has them. */
const everyKind: NewEntry[] = [
  { type: "model_change", provider: "local", modelId: "m1", timestamp: 1 },
  { type: "thinking_level_change", thinkingLevel: "high", timestamp: 2 },
  { type: "approval_mode", mode: "ask", timestamp: 3 },
  { type: "turn_start", timestamp: 4 },
  { type: "message", message: userText('line one\nline two \u2028 \u2029 "quoted" \\ back'), timestamp: 5 },
  { type: "message", message: assistantText("on it"), timestamp: 6 },
  { type: "message", message: toolResult("file contents ✓ 漢字 🎉"), timestamp: 7 },
  {
    type: "turn_end",
    turnId: "t",
    status: "failed",
    error: { message: "boom", kind: "provider" },
    files: [{ path: "a.ts", additions: 3, deletions: 1 }],
    timestamp: 8,
  },
  { type: "thread_name", name: "Fix the build", timestamp: 9 },
  { type: "compaction", summary: "earlier work", firstKeptEntryId: "abc", tokensBefore: 12345, timestamp: 10 },
  { type: "label", targetId: "abc", label: "checkpoint", timestamp: 11 },
  { type: "label", targetId: "abc", timestamp: 12 },
  { type: "custom", customType: "todo", data: { items: [1, 2, { done: true }], nothing: null }, timestamp: 13 },
  { type: "custom_message", customType: "note", content: [{ type: "text", text: "hi" }], display: true, details: { a: 1 }, timestamp: 14 },
  { type: "custom_message", customType: "note", content: "plain", display: false, timestamp: 15 },
  { type: "classification", toolCallId: "call_1", tool: "bash", verdict: "safe", reason: "runs the tests", timestamp: 16 },
  { type: "classification", toolCallId: "call_2", tool: "bash", verdict: "risky", reason: "force-pushes", confirmed: false, timestamp: 17 },
];

describe("format", () => {
  test("every kind round-trips through a file, with the four common keys first", async () => {
    const file = await SessionFile.create({ dir, cwd: dir });
    const written: SessionEntry[] = everyKind.map((entry) => file.append(entry));
    file.close();
    const read = await readSession(file.path);
    assert.deepEqual(read.issues, []);
    assert.deepEqual(read.entries, written);
    for (const [i, entry] of read.entries.entries()) {
      const { type, id, parentId, timestamp, ...rest } = entry as SessionEntry & Record<string, unknown>;
      assert.equal(parentId, i === 0 ? null : written[i - 1]!.id);
      // A turn end gets the branch's checkpoint from the writer.
      if (type === "turn_end") {
        assert.ok(rest.state && typeof rest.state === "object", "a turn_end carries a checkpoint");
        delete rest.state;
      }
      assert.deepEqual({ type, timestamp, ...rest }, everyKind[i]);
      assert.match(id, /^[0-9a-f]{12}$/);
    }
    const lines = readFileSync(file.path, "utf8").trimEnd().split("\n");
    assert.equal(lines.length, everyKind.length + 1);
    for (const line of lines.slice(1)) assert.match(line, /^\{"type":"[a-z_]+","id":"[0-9a-f]{12}","parentId":(null|"[0-9a-f]{12}"),"timestamp":\d+[,}]/);
    const reopened = await SessionFile.open(file.path);
    assert.deepEqual(reopened.branch(), written);
    reopened.close();
  });

  test("serializeEntry leads with the common keys even when the object's own order differs", () => {
    const entry = { 7: "integer-like key", zeta: 1, timestamp: 5, parentId: null, id: "x1", type: "future_kind" } as unknown as SessionEntry;
    const line = serializeEntry(entry);
    assert.ok(line.startsWith('{"type":"future_kind","id":"x1","parentId":null,"timestamp":5,'), line);
    assert.deepEqual(parseEntryLine(line), {
      ok: true,
      entry: { type: "future_kind", id: "x1", parentId: null, timestamp: 5, 7: "integer-like key", zeta: 1 },
    });
  });

  test("a malformed known kind is not an entry; an unknown kind is", () => {
    assert.equal(parseEntryLine('{"type":"message","id":"a","parentId":null,"timestamp":1,"message":"text"}').ok, false);
    assert.equal(parseEntryLine('{"type":"turn_end","id":"a","parentId":null,"timestamp":1,"turnId":"t","status":"done"}').ok, false);
    assert.equal(parseEntryLine('{"type":"message","id":"a","parentId":null,"timestamp":"1","message":{"role":"user"}}').ok, false);
    assert.equal(parseEntryLine('{"type":"classification","id":"a","parentId":null,"timestamp":1,"toolCallId":"c","tool":"bash","verdict":"risky"}').ok, false);
    assert.equal(
      parseEntryLine(
        '{"type":"classification","id":"a","parentId":null,"timestamp":1,"toolCallId":"c","tool":"bash","verdict":"risky","reason":"r","confirmed":"no"}',
      ).ok,
      false,
    );
    const unknown = parseEntryLine('{"type":"hologram","id":"a","parentId":null,"timestamp":1,"depth":3}');
    assert.ok(unknown.ok);
    assert.equal(isKnownEntry(unknown.entry), false);
  });

  test("append refuses an entry it would not read back", async () => {
    const owner = await SessionFile.create({ dir, cwd: dir });
    const before = readFileSync(owner.path, "utf8");
    assert.throws(() => owner.append({ type: "message", message: { role: 5 } } as unknown as NewEntry), TypeError);
    assert.throws(() => owner.append({ type: "turn_start", timestamp: Number.NaN }), TypeError);
    assert.equal(readFileSync(owner.path, "utf8"), before);
    owner.close();
  });

  test("unknown kinds from a newer version load, survive appends and forks, and a newer version is reported", async () => {
    const file = await SessionFile.create({ dir, cwd: dir });
    const first = file.append({ type: "turn_start" });
    file.close();
    const future = `{"type":"hologram","id":"f00f","parentId":"${first.id}","timestamp":2,"depth":{"x":[1,2]},"7":"seven"}\n`;
    const text = readFileSync(file.path, "utf8").replace('"version":1', '"version":3');
    appendFileSync(file.path, future);
    const withNewerHeader = `${file.path}.v3.jsonl`;
    appendFileSync(withNewerHeader, text + future);

    const owner = await SessionFile.open(file.path);
    assert.deepEqual(owner.branch().at(-1), { type: "hologram", id: "f00f", parentId: first.id, timestamp: 2, depth: { x: [1, 2] }, 7: "seven" });
    const after = owner.append({ type: "thread_name", name: "n" });
    assert.equal(after.parentId, "f00f");
    owner.close();

    const forked = await forkSession({ source: file.path, dir });
    const copy = await readSession(forked.path);
    assert.deepEqual(
      copy.entries.map((e) => e.type),
      ["turn_start", "hologram", "thread_name"],
    );
    assert.deepEqual(copy.entries[1], { type: "hologram", id: "f00f", parentId: first.id, timestamp: 2, depth: { x: [1, 2] }, 7: "seven" });

    const newer = await scanSession(withNewerHeader);
    assert.deepEqual(
      newer.issues.map((i) => i.kind),
      ["newerVersion"],
    );
    assert.equal(newer.refs.length, 2);
  });
});
