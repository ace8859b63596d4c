import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { loadIndex, serializeShard } from "../../src/listing/index-file.js";
import { decodeFacts, encodeFacts, factsOf, StoredFacts, type IndexedFile, type Row } from "../../src/listing/record.js";
import type { TranscriptFacts } from "../../src/listing/transcript-scan.js";
import { tempDir } from "./helpers.js";

const ID = "6f9619ff-8b86-4d11-b42d-00c04fc964ff";
const NAME = `2025-04-05T06-07-08-009Z_${ID}.jsonl`;

function facts(overrides: Partial<TranscriptFacts> = {}): TranscriptFacts {
  return { header: { id: ID, cwd: "/work/app", createdAt: "2025-04-05T06:07:08.009Z" }, scannedTo: 500, anchor: "abcdEFGH12345678", ...overrides };
}

describe("thread/list: a record's stored facts", () => {
  test("round-trip through the stored text: quotes, tabs, newlines, emoji and lone surrogates in titles and names; ASCII only", () => {
    const weird = facts({
      title: 'a "quoted"\ttab\nnewline \\ back 🎉 é',
      name: "日本語の名前 \u0000 \ud800 end",
      workspace: { mode: "worktree", cwd: "/wt/x\ty", path: "/wt/x", branch: "feature/é" },
      header: { id: ID, cwd: "/work/ä pp", createdAt: "2025-04-05T06:07:08.009Z", forkedFromId: "0b8f6c8e-1f5e-4b7e-9a53-5b2a6f0c9d11" },
    });
    const text = encodeFacts(weird, NAME, 500);
    assert.match(text, /^[\x20-\x7e]+$/, "the stored text is printable ASCII");
    assert.deepEqual(decodeFacts(text, NAME, 500), weird);
  });

  test("a sub-agent's parent fields are the last two; a record of nine fields, written before them, still decodes", () => {
    const parent = "0b8f6c8e-1f5e-4b7e-9a53-5b2a6f0c9d11";
    const child = facts({ title: "t", header: { ...facts().header, forkedFromId: "f", parentThreadId: parent, parentCallId: "call_1" } });
    const stored = JSON.parse(encodeFacts(child, NAME, 500)) as unknown[];
    assert.equal(stored.length, 11);
    assert.deepEqual(stored.slice(9), [parent, "call_1"]);
    assert.deepEqual(decodeFacts(JSON.stringify(stored), NAME, 500), child);
    const noCall = facts({ header: { ...facts().header, parentThreadId: parent } });
    assert.deepEqual(decodeFacts(encodeFacts(noCall, NAME, 500), NAME, 500), noCall);
    assert.deepEqual((JSON.parse(encodeFacts(facts(), NAME, 500)) as unknown[]).slice(9), [null, null]);

    // As the version before wrote it: no parent fields at all.
    const old = JSON.stringify(["/work/app", null, null, 400, "abcdEFGH12345678", "old title", "old name", "f", ["worktree", "/wt", "/wt", null, "b"]]);
    assert.deepEqual(decodeFacts(old, NAME, 500), {
      header: { id: ID, cwd: "/work/app", createdAt: "2025-04-05T06:07:08.009Z", forkedFromId: "f" },
      scannedTo: 400,
      anchor: "abcdEFGH12345678",
      title: "old title",
      name: "old name",
      workspace: { mode: "worktree", cwd: "/wt", path: "/wt", branch: "b" },
    });

    const base = stored.slice(0, 9);
    for (const bad of [[parent], [parent, "call_1", null], [null, "call_1"], ["", null], [7, null], [parent, ""], ["x".repeat(257), null], [parent, 7]]) {
      assert.equal(decodeFacts(JSON.stringify([...base, ...bad]), NAME, 500), undefined, JSON.stringify(bad));
    }
  });

  test("what the name and size say is left out, and a name that does not say it keeps it", () => {
    const stored = JSON.parse(encodeFacts(facts(), NAME, 500)) as unknown[];
    assert.deepEqual(stored.slice(1, 4), [null, null, null]);
    const elsewhere = JSON.parse(encodeFacts(facts({ scannedTo: 400 }), "renamed.jsonl", 500)) as unknown[];
    assert.deepEqual(elsewhere.slice(1, 4), [ID, "2025-04-05T06:07:08.009Z", 400]);
    assert.deepEqual(decodeFacts(JSON.stringify(elsewhere), "renamed.jsonl", 500), facts({ scannedTo: 400 }));
    assert.equal(decodeFacts(JSON.stringify(stored), "renamed.jsonl", 500), undefined, "a record that leans on a name that does not carry the id is damaged");
  });

  test("damaged stored text is refused, and a row decodes only when asked, keeping the decoded form only when told", () => {
    for (const bad of [
      "",
      "[",
      "{}",
      "[1,2,3]",
      '["/p",null,null,null,"a",null,null,null,null,"extra"]',
      '["/p",null,null,9999,"a",null,null,null,null]',
      '["/p",null,null,null,"a","é",null,null,null]',
    ]) {
      assert.equal(decodeFacts(bad, NAME, 500), undefined, bad);
    }
    const row: Row = { name: NAME, dir: "/s/", size: 500, mtimeMs: 1, ino: 1, facts: StoredFacts.of(facts({ title: "t" }), NAME, 500) };
    assert.equal(factsOf(row).title, "t");
    assert.ok(row.facts instanceof StoredFacts, "a page's decode lets go");
    factsOf(row, true);
    assert.ok(!(row.facts instanceof StoredFacts), "a filter's decode stays");
  });

  test("a shard written and read back gives the same records; names that could break a line are not written", () => {
    const dir = tempDir("record-shard") + "/";
    const records: IndexedFile[] = [
      { name: NAME, dir, size: 500, mtimeMs: 1_743_833_228_009.123, ino: 77, facts: StoredFacts.of(facts({ title: "first" }), NAME, 500) },
      { name: "notes.jsonl", dir, size: 3, mtimeMs: 5, ino: 78 },
      { name: "bad\tname.jsonl", dir, size: 3, mtimeMs: 5, ino: 79 },
      { name: "é.jsonl", dir, size: 3, mtimeMs: 5, ino: 80 },
    ];
    writeFileSync(join(dir, ".thread-index-1-0.tsv"), serializeShard(records, "1-0"));
    writeFileSync(join(dir, ".thread-index.json"), JSON.stringify({ version: 4, shards: 1 }));
    const loaded = loadIndex(dir);
    assert.equal(loaded.replace, false);
    assert.deepEqual([...loaded.files.keys()].sort(), [NAME, "notes.jsonl"]);
    const first = loaded.files.get(NAME)! as Row;
    assert.equal(first.mtimeMs, 1_743_833_228_009.123, "the mtime survives exactly");
    assert.equal(factsOf(first).title, "first");
    assert.equal(loaded.files.get("notes.jsonl")!.facts, undefined);
  });
});
