import { RelaySlice } from "./relay-slice.js";

const MiB = 1024 * 1024;

/**
 * The most one event of a model's stream may hold before it ends. A reply
 * is at most MAX_REPLY_BYTES (16 MiB) by default, and the largest event a
 * provider sends is its last, which can repeat the whole reply; four times
 * that leaves room for JSON's escapes. A server that streams on without
 * ever ending an event would otherwise fill the memory of the process that
 * hosts every thread.
 */
export const MAX_STREAM_EVENT_BYTES = 64 * MiB;

/** What the split needs of a relay slice (tests give their own). */
export interface SplitSlice {
  due(): boolean;
  pause(): Promise<void>;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Where the first event in `bytes` ends, searching from `from`: just after
 * the first blank line (`\n\n`, `\r\r` or `\r\n\r\n`), or -1 when no event
 * ends before `length`. A `\r\n\r\n` needs all four bytes in view.
 */
function eventEnd(bytes: Uint8Array, from: number, length: number): number {
  for (let i = from; i < length - 1; i++) {
    const byte = bytes[i];
    if (byte !== LF && byte !== CR) continue;
    const next = bytes[i + 1];
    if (next === byte) return i + 2;
    if (byte === CR && next === LF && i + 3 < length && bytes[i + 2] === CR && bytes[i + 3] === LF) return i + 4;
  }
  return -1;
}

const BLANK_LINE = Buffer.from("\n\n");

/**
 * eventEnd for bytes with no CR from `from` on, as most servers write:
 * the first `\n\n`, found by a native search. A loop over every byte in
 * JavaScript runs interpreted in a process's first turns, and its
 * optimization, once it is hot, competes for the CPU with the next reply.
 */
function lineFeedEventEnd(bytes: Buffer, from: number): number {
  const at = bytes.indexOf(BLANK_LINE, from);
  return at === -1 ? -1 : at + 2;
}

/**
 * The bytes of a server-sent-event stream, split into events: each one
 * yielded with the blank line that ends it, and what is left after the
 * last one yielded at the end, as the model SDKs' own splitter does (the
 * build puts this one in its place, see scripts/lib/sse-chunks.mjs). Unlike
 * theirs:
 * - the work is linear: what is left of a read is kept in place, not copied
 *   after each event, and the search for the next blank line goes on from
 *   where the last one stopped, so one event of many megabytes in many
 *   reads costs no more than many small ones;
 * - it takes a relay slice, and lets the event loop turn once it is spent;
 * - an event that passes `maxEventBytes` without ending fails the stream,
 *   saying so, instead of growing without bound.
 * Chunks may be bytes, an ArrayBuffer, a string, or null (skipped).
 */
export async function* splitEvents(chunks: AsyncIterable<unknown>, options: { slice?: SplitSlice; maxEventBytes?: number } = {}): AsyncGenerator<Uint8Array> {
  const slice = options.slice ?? new RelaySlice();
  const maxEventBytes = options.maxEventBytes ?? MAX_STREAM_EVENT_BYTES;
  const encoder = new TextEncoder();
  let buffer = new Uint8Array(0);
  /** Bytes in `buffer`; the event being read starts at `start`; no blank line ends before `searched`. */
  let length = 0;
  let start = 0;
  let searched = 0;
  for await (const chunk of chunks) {
    if (chunk == null) continue;
    const bytes = chunk instanceof ArrayBuffer ? new Uint8Array(chunk) : typeof chunk === "string" ? encoder.encode(chunk) : (chunk as Uint8Array);
    if (start > 0) {
      // What is left is part of one event, no longer than the last read: moving it is cheap.
      buffer.copyWithin(0, start, length);
      length -= start;
      searched -= start;
      start = 0;
    }
    if (length + bytes.length > buffer.length) {
      const grown = new Uint8Array(Math.max(length + bytes.length, buffer.length * 2, 64 * 1024));
      grown.set(buffer.subarray(0, length));
      buffer = grown;
    }
    buffer.set(bytes, length);
    length += bytes.length;
    const view = Buffer.from(buffer.buffer, buffer.byteOffset, length);
    const lineFeedsOnly = view.indexOf(CR, searched) === -1;
    for (;;) {
      const end = lineFeedsOnly ? lineFeedEventEnd(view, searched) : eventEnd(buffer, searched, length);
      if (end === -1) break;
      // Before the event, not after it: a read that arrives once the loop's turn is spent waits whole for a later turn.
      if (slice.due()) await slice.pause();
      yield buffer.slice(start, end);
      start = searched = end;
    }
    // The last three bytes may begin a blank line the next read completes.
    searched = Math.max(start, length - 3);
    if (length - start > maxEventBytes) {
      const bound = maxEventBytes >= MiB ? `${Math.round(maxEventBytes / MiB)} MiB` : `${maxEventBytes} bytes`;
      throw new Error(`an event in the model's stream passed ${bound} without ending; the stream was stopped`);
    }
  }
  if (length > start) yield buffer.slice(start, length);
}
