import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MAX_STREAM_EVENT_BYTES, splitEvents, type SplitSlice } from "../../src/run/sse-split.js";

const never: SplitSlice = { due: () => false, pause: async () => undefined };

async function* source(chunks: Iterable<unknown>): AsyncGenerator<unknown> {
  for (const chunk of chunks) yield chunk;
}

async function events(chunks: Iterable<unknown>, options: { maxEventBytes?: number } = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const event of splitEvents(source(chunks), { slice: never, ...options })) out.push(Buffer.from(event).toString("utf8"));
  return out;
}

/** `text` in pieces of `size` bytes. */
function* pieces(text: string, size: number): Generator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) yield new Uint8Array(bytes.subarray(at, at + size));
}

describe("splitting a model's stream into events", () => {
  test("each event comes with its blank line; a blank line cut across reads is found; the rest comes last", async () => {
    assert.deepEqual(await events(["data: a\r", "\n\r", "\ndata: b\n", "\n", "data: c\r\rtail"]), ["data: a\r\n\r\n", "data: b\n\n", "data: c\r\r", "tail"]);
    assert.deepEqual(await events([null, "", new TextEncoder().encode("data: x\n\n").buffer]), ["data: x\n\n"]);
  });

  test("an event of megabytes in small reads comes whole, beside small ones", async () => {
    const big = `data: ${"é".repeat(3 * 1024 * 1024)}\n\n`;
    const text = `data: first\n\n${big}data: last\n\n`;
    assert.deepEqual(await events(pieces(text, 4096)), ["data: first\n\n", big, "data: last\n\n"]);
  });

  test("an event that passes the bound without ending fails the stream, saying so, after the events before it", async () => {
    const out: string[] = [];
    const endless = function* () {
      yield "data: fine\n\n";
      for (let i = 0; i < 100; i++) yield "x".repeat(100);
    };
    await assert.rejects(
      async () => {
        for await (const event of splitEvents(source(endless()), { slice: never, maxEventBytes: 1000 })) out.push(Buffer.from(event).toString());
      },
      { message: "an event in the model's stream passed 1000 bytes without ending; the stream was stopped" },
    );
    assert.deepEqual(out, ["data: fine\n\n"]);
    // At the real bound, the message names it.
    assert.equal(MAX_STREAM_EVENT_BYTES, 64 * 1024 * 1024);
    await assert.rejects(events(pieces("y".repeat(MAX_STREAM_EVENT_BYTES + 1), 1024 * 1024)), /passed 64 MiB without ending/);
  });

  test("a slice that is due pauses between events, never inside one", async () => {
    let pauses = 0;
    const seenAtPause: number[] = [];
    const out: string[] = [];
    const slice: SplitSlice = {
      due: () => true,
      pause: async () => {
        pauses++;
        seenAtPause.push(out.length);
      },
    };
    for await (const event of splitEvents(source(["data: 1\n\ndata: 2\n\nda", "ta: 3\n\n"]), { slice })) out.push(Buffer.from(event).toString());
    assert.deepEqual(out, ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"]);
    assert.equal(pauses, 3);
    assert.deepEqual(seenAtPause, [0, 1, 2], "each pause comes before an event is handed on, after the one before it was taken");
  });
});
