import type { FileHandle } from "node:fs/promises";
import { ToolError } from "./errors.js";
import { MAX_LINE_CHARS, sliceChars } from "./format.js";

export interface WindowOptions {
  /** 1-based first line to keep. */
  offset: number;
  /** Most lines to keep. */
  maxLines: number;
  /** Most bytes of kept text (a first line is always kept, cut if need be). */
  maxBytes: number;
}

export interface TextWindow {
  lines: string[];
  /** Lines in the whole file; a last line without "\n" counts. */
  totalLines: number;
  /** The byte budget, not the line count, ended the window. */
  stoppedByBytes: boolean;
  cutLines: number;
}

const BINARY_SNIFF_BYTES = 8192;
/** Bytes kept of a long line: enough for MAX_LINE_CHARS characters of any width. */
const KEEP_LINE_BYTES = MAX_LINE_CHARS * 4;

/**
 * Scans a file once, keeping the lines of one window and counting the rest,
 * with memory bounded whatever the file holds (a gigabyte on one line too).
 */
class LineScanner {
  totalLines = 0;
  stopped = false;
  stoppedByBytes = false;
  cutLines = 0;
  readonly lines: string[] = [];
  private keptBytes = 0;
  private head: Buffer[] = [];
  private headBytes = 0;
  private lineBytes = 0;

  constructor(private readonly options: WindowOptions) {}

  feed(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      const newline = chunk.indexOf(10, pos);
      const end = newline === -1 ? chunk.length : newline;
      this.addPart(chunk.subarray(pos, end));
      if (newline === -1) return;
      this.endLine();
      pos = newline + 1;
    }
  }

  finish(): void {
    if (this.lineBytes > 0) this.endLine();
  }

  private inWindow(): boolean {
    return !this.stopped && this.totalLines + 1 >= this.options.offset;
  }

  private addPart(part: Buffer): void {
    this.lineBytes += part.length;
    if (!this.inWindow() || this.headBytes >= KEEP_LINE_BYTES) return;
    const kept = part.subarray(0, KEEP_LINE_BYTES - this.headBytes);
    this.head.push(kept);
    this.headBytes += kept.length;
  }

  private endLine(): void {
    if (this.inWindow()) this.keepLine();
    this.totalLines++;
    this.head = [];
    this.headBytes = 0;
    this.lineBytes = 0;
  }

  private keepLine(): void {
    let text = Buffer.concat(this.head).toString("utf8");
    if (this.lineBytes === this.headBytes && text.endsWith("\r")) text = text.slice(0, -1);
    if (this.lineBytes > this.headBytes || text.length > MAX_LINE_CHARS) {
      text = `${sliceChars(text, MAX_LINE_CHARS)} ... [line cut: ${this.lineBytes} bytes in full]`;
      this.cutLines++;
    }
    const bytes = Buffer.byteLength(text) + 1;
    if (this.lines.length > 0 && this.keptBytes + bytes > this.options.maxBytes) {
      this.stopped = true;
      this.stoppedByBytes = true;
      return;
    }
    this.lines.push(text);
    this.keptBytes += bytes;
    if (this.lines.length >= this.options.maxLines) this.stopped = true;
  }
}

/**
 * Reads one window of lines of a text file, from its start; a NUL byte near
 * the start means binary and is refused. The file stays open: its owner
 * closes it.
 */
export async function readTextWindow(file: FileHandle, options: WindowOptions, signal?: AbortSignal): Promise<TextWindow> {
  const scanner = new LineScanner(options);
  let sniffed = 0;
  const stream = file.createReadStream({ start: 0, highWaterMark: 256 * 1024, autoClose: false, ...(signal ? { signal } : {}) });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (sniffed < BINARY_SNIFF_BYTES) {
      if (chunk.subarray(0, BINARY_SNIFF_BYTES - sniffed).includes(0)) {
        stream.destroy();
        throw new ToolError("binaryFile", "This is a binary file (it contains NUL bytes) and not an image this tool can show.");
      }
      sniffed += chunk.length;
    }
    scanner.feed(chunk);
  }
  scanner.finish();
  return { lines: scanner.lines, totalLines: scanner.totalLines, stoppedByBytes: scanner.stoppedByBytes, cutLines: scanner.cutLines };
}
