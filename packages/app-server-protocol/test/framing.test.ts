import assert from "node:assert/strict";
import { test } from "node:test";
import { LineFramer, decodeUtf8 } from "../src/framing.js";

function frame(chunks: Buffer[], maxLineBytes = 1024) {
  const lines: string[] = [];
  const oversized: number[] = [];
  const framer = new LineFramer({
    maxLineBytes,
    onLine: (line) => lines.push(decodeUtf8(line) ?? "<invalid utf-8>"),
    onOversized: (bytes) => oversized.push(bytes),
  });
  for (const chunk of chunks) framer.push(chunk);
  return { lines, oversized, framer };
}

test("splits on LF only: U+2028 and U+2029 stay inside their line", () => {
  const text = '{"a":"x\u2028y\u2029z"}\n{"b":1}\n';
  const { lines } = frame([Buffer.from(text)]);
  assert.deepEqual(lines, ['{"a":"x\u2028y\u2029z"}', '{"b":1}']);
});

test("a multi-byte character split across chunks at every byte decodes whole", () => {
  const bytes = Buffer.from('{"t":"é😀\u2028"}\n');
  for (let cut = 1; cut < bytes.length; cut++) {
    const { lines } = frame([bytes.subarray(0, cut), bytes.subarray(cut)]);
    assert.deepEqual(lines, ['{"t":"é😀\u2028"}'], `cut at ${cut}`);
  }
});

test("CR before LF stays in the line (JSON ignores it as whitespace)", () => {
  const { lines } = frame([Buffer.from("{}\r\n{}\n")]);
  assert.deepEqual(lines, ["{}\r", "{}"]);
});

test("a last line without LF is delivered at end of input", () => {
  const { lines, framer } = frame([Buffer.from("{}\n{")]);
  assert.deepEqual(lines, ["{}"]);
  framer.end();
  assert.deepEqual(lines, ["{}", "{"]);
});

test("an oversized line is reported once with its size and the next line still arrives", () => {
  const chunks = [Buffer.from("a".repeat(600)), Buffer.from("b".repeat(600)), Buffer.from("c".repeat(5000)), Buffer.from("\n{}\n")];
  const { lines, oversized } = frame(chunks, 1024);
  assert.deepEqual(oversized, [6200]);
  assert.deepEqual(lines, ["{}"]);
});

test("a line of exactly the limit passes; one byte more does not", () => {
  assert.deepEqual(frame([Buffer.from("x".repeat(1024) + "\n")]).lines, ["x".repeat(1024)]);
  assert.deepEqual(frame([Buffer.from("x".repeat(1025) + "\n")]).oversized, [1025]);
});

test("memory stays bounded while an oversized line is skipped", () => {
  const framer = new LineFramer({ maxLineBytes: 1024, onLine: () => undefined, onOversized: () => undefined });
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  for (let i = 0; i < 100; i++) framer.push(chunk);
  const internal = framer as unknown as { chunks: Buffer[]; buffered: number };
  assert.equal(internal.chunks.length, 0);
  assert.equal(internal.buffered, 0);
});

test("invalid UTF-8 is refused rather than silently replaced", () => {
  assert.equal(decodeUtf8(Buffer.from([0x7b, 0xff, 0x7d])), undefined);
  assert.equal(decodeUtf8(Buffer.from("{}")), "{}");
});
