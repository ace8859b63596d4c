import assert from "node:assert/strict";
import { appendFileSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { boundText, NAME_MAX, titleFromText, userMessageText } from "../../src/listing/title.js";
import { NotATranscript } from "../../src/listing/transcript-pass.js";
import { scanTranscript, type TranscriptFacts } from "../../src/listing/transcript-scan.js";
import { parseEntryLine, serializeEntry, serializeHeader, type SessionEntry } from "../../src/session/format.js";
import { assistantText, mulberry32, userText } from "../session/helpers.js";
import { tempDir } from "./helpers.js";

const dir = tempDir("transcript-scan");
const header = serializeHeader({ type: "session", version: 1, id: "11111111-1111-4111-8111-111111111111", cwd: "/p", createdAt: "2025-01-01T00:00:00Z" });
let files = 0;
let ids = 0;

const nextId = () => `i${(ids++).toString(16).padStart(11, "0")}`;
const line = (fields: Record<string, unknown> & { type: string }) =>
  serializeEntry({ id: nextId(), parentId: null, timestamp: 1_700_000_000_000, ...fields } as SessionEntry);
const user = (content: unknown) => line({ type: "message", message: { role: "user", content, timestamp: 1 } });
const named = (name: string) => line({ type: "thread_name", name });

function write(text: string): string {
  const path = join(dir, `t${files++}.jsonl`);
  writeFileSync(path, text);
  return path;
}

async function scan(path: string, resume?: TranscriptFacts): Promise<{ facts: TranscriptFacts; bytes: number }> {
  const handle = await open(path, "r");
  let bytes = 0;
  try {
    const { size } = await handle.stat();
    const facts = await scanTranscript(handle, path, size, resume, (n) => (bytes += n));
    return { facts, bytes };
  } finally {
    await handle.close();
  }
}

/** What a reader parsing every line whole finds: the first user message's title and the latest name, in file order. */
function reference(text: string): { title?: string; name?: string } {
  const lines = text.split("\n");
  const out: { title?: string; name?: string } = {};
  for (let i = 1; i < lines.length; i++) {
    const parsed = parseEntryLine(lines[i]!);
    if (!parsed.ok) continue;
    const entry = parsed.entry as { type: string; name?: string; message?: unknown };
    if (entry.type === "thread_name") out.name = boundText(entry.name!, NAME_MAX);
    const text = entry.type === "message" && out.title === undefined ? userMessageText(entry.message) : undefined;
    if (text !== undefined) out.title = titleFromText(text);
  }
  return out;
}

const pick = (facts: TranscriptFacts) => ({
  ...(facts.title === undefined ? {} : { title: facts.title }),
  ...(facts.name === undefined ? {} : { name: facts.name }),
});

describe("titles", () => {
  test("bounded by code points, with an ellipsis; astral characters are never split", () => {
    assert.equal(boundText("short", 10), "short");
    assert.equal(boundText("abcdefghijk", 10), "abcdefghi…");
    assert.equal(boundText("abcdefghij", 10), "abcdefghij");
    const emoji = "😀".repeat(12);
    assert.equal(boundText(emoji, 10), `${"😀".repeat(9)}…`);
    assert.equal(boundText("😀".repeat(10), 10), "😀".repeat(10));
  });

  test("the first non-blank line, whatever the line breaks", () => {
    assert.equal(titleFromText("\r\n  \n\t title here \r\nmore"), "title here");
    assert.equal(titleFromText("one\u2028two"), "one");
    assert.equal(titleFromText("   \n \n"), "");
    assert.equal(titleFromText(""), "");
  });

  test("a user message's text: its string, or its first text part", () => {
    assert.equal(
      userMessageText({
        role: "user",
        content: [
          { type: "image", data: "x", mimeType: "image/png" },
          { type: "text", text: "caption" },
        ],
      }),
      "caption",
    );
    assert.equal(userMessageText({ role: "user", content: [{ type: "image", data: "x", mimeType: "image/png" }] }), "");
    assert.equal(userMessageText({ role: "assistant", content: "no" }), undefined);
  });
});

describe("the transcript pass", () => {
  test("reads the header, the first user message and the latest name, even one set early", async () => {
    const lines = [header, line({ type: "model_change", provider: "p", modelId: "m" }), named("early"), user("Hello there\nmore"), user("second")];
    for (let i = 0; i < 200; i++) lines.push(line({ type: "message", message: assistantText(`reply ${i}`) }));
    const path = write(lines.join("\n") + "\n");
    const { facts, bytes } = await scan(path);
    assert.deepEqual(facts.header, { id: "11111111-1111-4111-8111-111111111111", cwd: "/p", createdAt: "2025-01-01T00:00:00.000Z" });
    assert.deepEqual(pick(facts), { title: "Hello there", name: "early" });
    assert.equal(facts.scannedTo, bytes);
  });

  test("first user messages longer than the read buffer, or than what is parsed whole", async () => {
    const big = `Big paste\n${"z".repeat(300 * 1024)}`;
    const a = await scan(write([header, line({ type: "message", message: assistantText("x".repeat(400 * 1024)) }), user(big)].join("\n") + "\n"));
    assert.equal(a.facts.title, "Big paste");
    const huge = `  \\ "quoted" ${"é".repeat(100)}\n${"y".repeat(5 * 1024 * 1024)}`;
    const b = await scan(write([header, user(huge), named("n")].join("\n") + "\n"));
    assert.deepEqual(pick(b.facts), { title: boundText(`\\ "quoted" ${"é".repeat(100)}`, 120), name: "n" });
    const c = await scan(
      write(
        [
          header,
          user([
            { type: "text", text: `Picture ${"w".repeat(300 * 1024)}` },
            { type: "image", data: "AAAA", mimeType: "image/png" },
          ]),
        ].join("\n") + "\n",
      ),
    );
    assert.equal(c.facts.title, `Picture ${"w".repeat(111)}…`);
  });

  test("damage: torn tails, corrupt lines, other layouts, CRLF", async () => {
    const reordered = JSON.stringify({ name: "other layout", timestamp: 1, parentId: null, id: "zz", type: "thread_name" });
    const corruptName = named("corrupt").replace('"name":', '"name":oops');
    const text = [header, `${user("first")}\r`, reordered, corruptName, "", "   ", named("torn").slice(0, 40)].join("\n");
    const torn = await scan(write(text));
    assert.deepEqual(pick(torn.facts), { title: "first", name: "other layout" });
    assert.equal(torn.facts.scannedTo, text.lastIndexOf("\n") + 1, "the torn tail is read again next time");
    const unterminated = await scan(write([header, user("first"), named("no final LF")].join("\n")));
    assert.deepEqual(pick(unterminated.facts), { title: "first", name: "no final LF" });
    assert.equal(unterminated.facts.scannedTo, 0, "a value from an unterminated line is never resumed after");
  });

  test("a file whose line 1 is not a header is not a transcript", async () => {
    for (const text of [
      "",
      "\n",
      "not json\n",
      `${user("x")}\n`,
      `${"{".repeat(70 * 1024)}\n`,
      `{"type":"session","version":1,"id":"a","cwd":"/p","createdAt":"x","pad":"${"p".repeat(300 * 1024)}"}\n`,
    ]) {
      await assert.rejects(scan(write(text)), NotATranscript, text.slice(0, 30));
    }
  });

  test("an appended file is read from where the last pass stopped; a changed one from the start", async () => {
    const first =
      [header, user("first"), ...Array.from({ length: 50 }, (_, i) => line({ type: "message", message: assistantText(`r${i}`) }))].join("\n") + "\n";
    const path = write(first);
    const cold = await scan(path);
    const added = `${named("later")}\n${line({ type: "turn_start" })}\n`;
    appendFileSync(path, added);
    const warm = await scan(path, cold.facts);
    assert.deepEqual(pick(warm.facts), { title: "first", name: "later" });
    assert.equal(warm.bytes, added.length + 256, "the appended bytes and the anchor before them");
    // Rewritten in place with as many bytes, the last ones different: transcripts only grow, so the bytes
    // before the old end are checked through the anchor, a hash of the 256 before it.
    writeFileSync(path, first + added.replace("turn_start", "turn_Start"));
    const again = await scan(path, warm.facts);
    assert.equal(again.bytes >= first.length + added.length, true);
    // Nothing new but the mtime: only the anchor is read.
    const touched = await scan(path, again.facts);
    assert.equal(touched.bytes, 256);
    assert.deepEqual(touched.facts, again.facts);
  });

  test("random transcripts agree with a whole-line reader, scanned at once or in appended parts", async () => {
    const random = mulberry32(20250301);
    const word = () => 'lorem ipsum dolor sit amet é 😀 \\ " \t'.split(" ")[Math.floor(random() * 9)]!;
    const text = (max: number) => Array.from({ length: Math.floor(random() * max) }, word).join(random() < 0.1 ? "\n" : " ");
    for (let round = 0; round < 40; round++) {
      const lines = [header];
      const count = 1 + Math.floor(random() * 40);
      for (let i = 0; i < count; i++) {
        const r = random();
        if (r < 0.15) lines.push(user(random() < 0.5 ? text(20) : [{ type: "text", text: text(20) }]));
        else if (r < 0.3) lines.push(named(text(8) || "n"));
        else if (r < 0.4)
          lines.push(line({ type: "message", message: assistantText(random() < 0.3 ? "a".repeat(200_000 + Math.floor(random() * 200_000)) : text(30)) }));
        else if (r < 0.45) lines.push(user("u".repeat(250_000 + Math.floor(random() * 20_000))));
        else if (r < 0.5) lines.push(named("x").slice(0, 30));
        else if (r < 0.55) lines.push(JSON.stringify({ message: userText(text(5)), id: nextId(), type: "message", parentId: null, timestamp: 1 }));
        else lines.push(line({ type: "turn_start" }));
      }
      const whole = lines.join("\n") + "\n";
      const expected = reference(whole);
      const path = write(whole);
      assert.deepEqual(pick((await scan(path)).facts), expected, `round ${round}`);
      const cut = 1 + Math.floor(random() * (lines.length - 1));
      writeFileSync(path, lines.slice(0, cut).join("\n") + "\n");
      const part = await scan(path);
      appendFileSync(path, lines.slice(cut).join("\n") + "\n");
      assert.deepEqual(pick((await scan(path, part.facts)).facts), expected, `round ${round}, resumed at line ${cut}`);
    }
  });
});
