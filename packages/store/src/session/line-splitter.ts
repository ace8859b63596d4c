import type { FileHandle } from "node:fs/promises";

/** Bytes of a line's start kept for its fixed-prefix keys. */
export const HEAD_BYTES = 512;

const LF = 0x0a;

/**
 * One line, seen through a view that is reused for every line (the scan
 * visits hundreds of thousands of lines; allocating per line would dominate
 * it). Valid only during the callback.
 */
export interface LineView {
  /** Byte offset of the line in the file. */
  offset: number;
  /** Bytes, without the LF. */
  length: number;
  /** Whether an LF ends it; only the file's last line can lack one. */
  terminated: boolean;
  /** bytes[start, headEnd) is the line's first HEAD_BYTES bytes (fewer for a short line). */
  bytes: Buffer;
  start: number;
  headEnd: number;
  /** bytes[start, start + length) holds the whole line; false for a long line spanning read chunks. */
  whole: boolean;
  /** The last byte that is not JSON whitespace, or -1 for a blank line. */
  lastSignificant: number;
}

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function lastSignificantIn(buf: Buffer, start: number, end: number, fallback: number): number {
  for (let i = end - 1; i >= start; i--) {
    const byte = buf[i]!;
    if (!isJsonSpace(byte)) return byte;
  }
  return fallback;
}

/** A line begun in an earlier chunk: only its head and last byte are kept, never the whole of a long line. */
class OpenLine {
  readonly head = Buffer.allocUnsafe(HEAD_BYTES);
  headLength = 0;
  lastSignificant = -1;

  constructor(readonly offset: number) {}

  add(buf: Buffer, start: number, end: number): void {
    const take = Math.min(end - start, HEAD_BYTES - this.headLength);
    if (take > 0) this.headLength += buf.copy(this.head, this.headLength, start, start + take);
    this.lastSignificant = lastSignificantIn(buf, start, end, this.lastSignificant);
  }

  close(view: LineView, endOffset: number, terminated: boolean): LineView {
    view.offset = this.offset;
    view.length = endOffset - this.offset;
    view.terminated = terminated;
    view.bytes = this.head;
    view.start = 0;
    view.headEnd = this.headLength;
    view.whole = view.length === this.headLength;
    view.lastSignificant = this.lastSignificant;
    return view;
  }
}

/**
 * Calls `onLine` for every LF-separated line of the first `size` bytes,
 * reading `chunkSize` bytes at a time. Splitting happens on LF bytes only:
 * U+2028 and U+2029 are legal inside JSON strings, so readline's notion of a
 * line does not apply. Memory stays at one chunk whatever the line lengths.
 * Returns the bytes read (less than `size` if the file shrank meanwhile).
 */
export async function forEachLine(file: FileHandle, size: number, chunkSize: number, onLine: (line: LineView) => void): Promise<number> {
  const buffer = Buffer.allocUnsafe(chunkSize);
  const view: LineView = { offset: 0, length: 0, terminated: false, bytes: buffer, start: 0, headEnd: 0, whole: false, lastSignificant: -1 };
  let position = 0;
  let open: OpenLine | undefined;
  while (position < size) {
    const { bytesRead } = await file.read(buffer, 0, Math.min(chunkSize, size - position), position);
    if (bytesRead === 0) break;
    const atEnd = position + bytesRead >= size;
    let start = 0;
    while (start < bytesRead) {
      let lf = buffer.indexOf(LF, start);
      if (lf >= bytesRead) lf = -1;
      const end = lf === -1 ? bytesRead : lf;
      if (open === undefined && (lf !== -1 || atEnd)) {
        view.offset = position + start;
        view.length = end - start;
        view.terminated = lf !== -1;
        view.bytes = buffer;
        view.start = start;
        view.headEnd = Math.min(end, start + HEAD_BYTES);
        view.whole = true;
        view.lastSignificant = lastSignificantIn(buffer, start, end, -1);
        onLine(view);
      } else {
        open ??= new OpenLine(position + start);
        open.add(buffer, start, end);
        if (lf !== -1) {
          onLine(open.close(view, position + lf, true));
          open = undefined;
        }
      }
      if (lf === -1) break;
      start = lf + 1;
    }
    position += bytesRead;
  }
  if (open !== undefined) onLine(open.close(view, position, false));
  return position;
}
