/**
 * Splits a byte stream into LF-terminated lines without Node's readline,
 * which would also split on U+2028 and U+2029 inside JSON strings. A line
 * over `maxLineBytes` is skipped up to its LF with a single report, holding
 * no more than the limit in memory while it is skipped.
 */
export interface LineFramerOptions {
  maxLineBytes: number;
  onLine(line: Buffer): void;
  onOversized(bytes: number): void;
}

const LF = 0x0a;

export class LineFramer {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes of the current line seen so far while skipping an oversized one, else -1. */
  private skipped = -1;

  constructor(private readonly options: LineFramerOptions) {}

  /** Takes the chunk: the caller must not change it afterwards (stream chunks never are). */
  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(LF, start);
      if (end === -1) {
        this.append(chunk.subarray(start), chunk.length);
        return;
      }
      this.append(chunk.subarray(start, end), chunk.length);
      this.finishLine();
      start = end + 1;
    }
  }

  /** End of input: a last line without its LF still counts. */
  end(): void {
    if (this.buffered > 0 || this.skipped >= 0) this.finishLine();
  }

  private append(part: Buffer, chunkLength: number): void {
    if (part.length === 0) return;
    if (this.skipped >= 0) {
      this.skipped += part.length;
      return;
    }
    if (this.buffered + part.length > this.options.maxLineBytes) {
      this.skipped = this.buffered + part.length;
      this.chunks = [];
      this.buffered = 0;
      return;
    }
    // Most of a chunk is kept as it is; a small piece is copied so it does not pin the rest of its chunk.
    this.chunks.push(part.length * 2 >= chunkLength ? part : Buffer.from(part));
    this.buffered += part.length;
  }

  private finishLine(): void {
    if (this.skipped >= 0) {
      const bytes = this.skipped;
      this.skipped = -1;
      this.options.onOversized(bytes);
      return;
    }
    const line = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    this.options.onLine(line);
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Decodes a line, or returns undefined when it is not valid UTF-8. */
export function decodeUtf8(line: Uint8Array): string | undefined {
  try {
    return decoder.decode(line);
  } catch {
    return undefined;
  }
}
