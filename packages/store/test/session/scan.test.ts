import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parseEntryLine, serializeEntry, serializeHeader, type MessageEntry, type SessionHeader } from "../../src/session/format.js";
import { readEntries, readSession, readSessionHeader } from "../../src/session/read.js";
import { scanSession, type EntryRef } from "../../src/session/scan.js";
import { SessionFile } from "../../src/session/session-file.js";
import { mulberry32, rejectsWithCode, tempDir, userText } from "./helpers.js";

const dir = tempDir("scan");
let n = 0;
const header: SessionHeader = { type: "session", version: 1, id: "00000000-0000-4000-8000-000000000000", cwd: "/p", createdAt: "2025-01-01T00:00:00.000Z" };

function entry(id: string, parentId: string | null, text = id): MessageEntry {
  return { type: "message", id, parentId, timestamp: 1_700_000_000_000, message: userText(text) };
}

function transcript(lines: string[], ending = "\n"): string {
  const path = join(dir, `t${n++}.jsonl`);
  writeFileSync(path, [serializeHeader(header), ...lines].join("\n") + ending);
  return path;
}

const chain = (...ids: string[]) => ids.map((id, i) => serializeEntry(entry(id, i === 0 ? null : ids[i - 1]!)));

describe("scan", () => {
  test("a torn last line is skipped and reported; the rest loads", async () => {
    const whole = chain("a1", "a2", "a3");
    const path = transcript([...whole, whole[2]!.replace("a3", "a4").slice(0, 40)], "");
    const index = await scanSession(path);
    assert.deepEqual(
      index.refs.map((r) => r.id),
      ["a1", "a2", "a3"],
    );
    assert.equal(index.leafId, "a3");
    assert.deepEqual(
      index.issues.map((i) => [i.kind, i.line]),
      [["torn", 5]],
    );
    assert.equal(index.goodSize, index.refs[2]!.offset + index.refs[2]!.length + 1);
    const read = await readSession(path);
    assert.deepEqual(
      read.entries.map((e) => e.id),
      ["a1", "a2", "a3"],
    );
  });

  test("corrupt middle lines are skipped and reported, and the chain is mended", async () => {
    const [a1, a2, a3, a4, a5] = chain("a1", "a2", "a3", "a4", "a5");
    const badBody = a3!.replace('"message":{', '"message":{oops');
    const torn = a4!.slice(0, 50);
    const path = transcript([a1!, a2!.replace('{"type"', "not json {"), badBody, torn, a5!]);
    const index = await scanSession(path);
    // Line 3 is garbage, so a3 hangs under a1; line 5 is torn, so a5 hangs under a3. Line 4 has a readable prefix; its body fails later.
    assert.deepEqual(
      index.refs.map((r) => [r.id, r.parentId]),
      [
        ["a1", null],
        ["a3", "a1"],
        ["a5", "a3"],
      ],
    );
    const scanned = [
      ["corrupt", 3],
      ["danglingParent", 4],
      ["corrupt", 5],
      ["danglingParent", 6],
    ];
    assert.deepEqual(
      index.issues.map((i) => [i.kind, i.line]),
      scanned,
    );
    const read = await readSession(path);
    assert.deepEqual(
      read.entries.map((e) => e.id),
      ["a1", "a5"],
    );
    assert.deepEqual(
      read.issues.map((i) => [i.kind, i.line]),
      [...scanned, ["corrupt", 4]],
    );
  });

  test("duplicate ids keep the first line", async () => {
    const [a1, a2] = chain("a1", "a2");
    const path = transcript([a1!, a2!, serializeEntry(entry("a1", "a2", "again"))]);
    const index = await scanSession(path);
    assert.deepEqual(
      index.refs.map((r) => r.id),
      ["a1", "a2"],
    );
    assert.deepEqual(
      index.issues.map((i) => [i.kind, i.entryId]),
      [["duplicateId", "a1"]],
    );
  });

  test("files without a usable header are notASessionFile; a missing one is notFound", async () => {
    const cases: Array<[string, string | Buffer]> = [
      ["empty", ""],
      ["garbage", "hello world\n"],
      ["entry first", `${chain("a1")[0]}\n`],
      ["wrong type", '{"type":"sessions","version":1,"id":"x","cwd":"/","createdAt":"t"}\n'],
      ["no version", '{"type":"session","id":"x","cwd":"/","createdAt":"t"}\n'],
      ["binary", Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))],
      ["huge first line", `{"type":"session","pad":"${"x".repeat(70_000)}`],
    ];
    for (const [name, content] of cases) {
      const path = join(dir, `bad-${name.replace(/ /g, "-")}.jsonl`);
      writeFileSync(path, content);
      await rejectsWithCode(scanSession(path), "notASessionFile");
      await rejectsWithCode(readSession(path), "notASessionFile");
      await rejectsWithCode(readSessionHeader(path), "notASessionFile");
      await rejectsWithCode(SessionFile.open(path), "notASessionFile");
    }
    await rejectsWithCode(scanSession(join(dir, "missing.jsonl")), "notFound");
    await rejectsWithCode(SessionFile.open(join(dir, "missing.jsonl")), "notFound");
  });

  test("readSessionHeader reads line 1 only", async () => {
    const path = transcript(["garbage that a full read would report"]);
    assert.deepEqual(await readSessionHeader(path), header);
  });

  test("a whole last line without its LF is an entry, and a writer adds the LF before appending", async () => {
    const path = transcript(chain("a1", "a2"), "");
    const index = await scanSession(path);
    assert.equal(index.missingFinalNewline, true);
    assert.deepEqual(index.issues, []);
    const owner = await SessionFile.open(path);
    owner.append({ type: "turn_start" });
    owner.close();
    const read = await readSession(path);
    assert.deepEqual(read.issues, []);
    assert.deepEqual(
      read.entries.map((e) => e.type),
      ["message", "message", "turn_start"],
    );
  });

  test("readEntries reads any refs by offset, aligned with the request, and notices a changed line", async () => {
    const path = transcript(chain("a1", "a2", "a3", "a4"));
    const index = await scanSession(path);
    const [r1, r2, , r4] = index.refs;
    const moved: EntryRef = { ...r2!, offset: r1!.offset };
    const read = await readEntries(path, [r4!, moved, r1!]);
    assert.deepEqual(
      read.entries.map((e) => e?.id),
      ["a4", undefined, "a1"],
    );
    assert.deepEqual(
      read.issues.map((i) => [i.kind, i.entryId]),
      [["corrupt", "a2"]],
    );
  });

  test("any chunk size gives the same index as a naive whole-line parse", async () => {
    for (let seed = 1; seed <= 4; seed++) {
      const random = mulberry32(seed);
      const lines = randomLines(random);
      const terminated = random() < 0.5;
      const path = transcript(lines, terminated ? "\n" : "");
      const expected = naiveIndex(lines, terminated);
      for (const chunkSize of [7, 64, 511, 4096, 1 << 20]) {
        const index = await scanSession(path, { chunkSize });
        const got = index.refs.map((r) => [r.id, r.parentId, r.offset, r.length, r.line]);
        assert.deepEqual(got, expected.refs, `seed ${seed}, chunk ${chunkSize}`);
        assert.deepEqual(
          index.issues.map((i) => [i.kind, i.line]),
          expected.issues,
          `seed ${seed}, chunk ${chunkSize}`,
        );
      }
    }
  });
});

/** Entries in several layouts and sizes, with blank, CRLF, garbage and duplicate lines among them. */
function randomLines(random: () => number): string[] {
  const lines: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 120; i++) {
    const roll = random();
    const id = random() < 0.04 && ids.length > 0 ? ids[Math.floor(random() * ids.length)]! : `e${i}`;
    const parent = ids.length === 0 || random() < 0.05 ? null : random() < 0.05 ? "ghost" : ids.at(-1)!;
    const text = "é\u2028😀".repeat(Math.floor(random() * (random() < 0.2 ? 150 : 20)));
    const value = entry(id, parent, text);
    if (roll < 0.06) lines.push("");
    else if (roll < 0.09) lines.push("garbage, not an entry");
    else if (roll < 0.15) lines.push(JSON.stringify({ message: value.message, timestamp: value.timestamp, parentId: parent, id, type: "message" }));
    else if (roll < 0.2) lines.push(`${serializeEntry(value)}\r`);
    else if (roll < 0.24) lines.push(serializeEntry({ ...value, id: `q"${id}` }));
    else lines.push(serializeEntry(value));
    ids.push(id);
  }
  return lines;
}

function naiveIndex(lines: string[], terminated: boolean): { refs: unknown[][]; issues: unknown[][] } {
  const refs: unknown[][] = [];
  const issues: unknown[][] = [];
  const seen = new Set<string>();
  let offset = Buffer.byteLength(serializeHeader(header)) + 1;
  let previous: string | null = null;
  for (const [i, line] of lines.entries()) {
    const lineNumber = i + 2;
    const length = Buffer.byteLength(line);
    const parsed = parseEntryLine(line);
    if (line.trim() === "") {
      // Blank: skipped silently.
    } else if (!parsed.ok) {
      issues.push([!terminated && i === lines.length - 1 ? "torn" : "corrupt", lineNumber]);
    } else if (seen.has(parsed.entry.id)) {
      issues.push(["duplicateId", lineNumber]);
    } else {
      let parentId = parsed.entry.parentId;
      if (parentId !== null && !seen.has(parentId)) {
        issues.push(["danglingParent", lineNumber]);
        parentId = previous;
      }
      seen.add(parsed.entry.id);
      refs.push([parsed.entry.id, parentId, offset, length, lineNumber]);
      previous = parsed.entry.id;
    }
    offset += length + 1;
  }
  return { refs, issues };
}
