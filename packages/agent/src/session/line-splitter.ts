import type { FileHandle } from "node:fs/promises";

/** Bytes of a line's start kept for its fixed-prefix keys. */
export const HEAD_BYTES = 512;

const LF = 0x0a;

export interface LineView {
  /** Byte offset of the line in the file. */
  offset: number;
  /** Bytes, without the LF. */
  length: number;
  /** Whether an LF ends it; only the file's last line can lack one. */
  terminated: boolean;
  /** The first HEAD_BYTES bytes (fewer for a short line). Valid only during the callback. */
  head: Buffer;
  /** The whole line when it sits in one read chunk; undefined for a line that spans chunks. Valid only during the callback. */
  whole: Buffer | undefined;
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
}

/**
 * Calls `onLine` for every LF-separated line of the first `size` bytes,
 * reading `chunkSize` bytes at a time. Splitting happens on LF bytes only:
 * U+2028 and U+2029 are legal inside JSON strings, so readline's notion of a
 * line does not apply. Memory stays at one chunk whatever the line lengths.
 */
export async function forEachLine(file: FileHandle, size: number, chunkSize: number, onLine: (line: LineView) => void): Promise<number> {
  const buffer = Buffer.allocUnsafe(chunkSize);
  let position = 0;
  let open: OpenLine | undefined;
  while (position < size) {
    const { bytesRead } = await file.read(buffer, 0, Math.min(chunkSize, size - position), position);
    if (bytesRead === 0) break; // The file shrank while we read it.
    const chunk = buffer.subarray(0, bytesRead);
    let start = 0;
    while (start < bytesRead) {
      const lf = chunk.indexOf(LF, start);
      const end = lf === -1 ? bytesRead : lf;
      const atEnd = position + bytesRead >= size;
      if (open === undefined && (lf !== -1 || atEnd)) {
        const whole = chunk.subarray(start, end);
        const head = end - start > HEAD_BYTES ? chunk.subarray(start, start + HEAD_BYTES) : whole;
        const terminated = lf !== -1;
        onLine({ offset: position + start, length: end - start, terminated, head, whole, lastSignificant: lastSignificantIn(chunk, start, end, -1) });
      } else {
        open ??= new OpenLine(position + start);
        open.add(chunk, start, end);
        if (lf !== -1) {
          onLine(closeLine(open, position + lf, true));
          open = undefined;
        }
      }
      if (lf === -1) break;
      start = lf + 1;
    }
    position += bytesRead;
  }
  if (open !== undefined) onLine(closeLine(open, position, false));
  return position;
}

function closeLine(open: OpenLine, endOffset: number, terminated: boolean): LineView {
  const length = endOffset - open.offset;
  const head = open.head.subarray(0, open.headLength);
  return { offset: open.offset, length, terminated, head, whole: length === open.headLength ? head : undefined, lastSignificant: open.lastSignificant };
}
