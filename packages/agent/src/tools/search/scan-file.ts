import type { FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { throwIfAborted } from "../errors.js";
import type { LinePattern } from "./regex.js";

/** A line grep shows: a match, or context around one. Text without its line ending. */
export interface LineHit {
  kind: "match" | "context";
  line: number;
  text: string;
}

export interface ScanOptions {
  pattern: LinePattern;
  /** Lines shown before and after each match. */
  context: number;
  /**
   * Stop at the first chunk holding a NUL byte, as rg does for files it
   * found itself; a file named explicitly is searched whole.
   */
  binaryQuits: boolean;
  signal?: AbortSignal;
  /** The file's size when opened: what is read (all of it when 0, as for files in /proc). */
  size: number;
}

export const CHUNK_BYTES = 64 * 1024;
/** Longer lines are not searched, so one file cannot take memory without bound. */
export const MAX_SEARCHED_LINE_CHARS = 8 * 1024 * 1024;

/**
 * Reads a file a chunk at a time into `buffer` (CHUNK_BYTES long), giving
 * `emit` its matching lines and their context in order. Returns false when
 * `emit` asked to stop.
 */
export async function scanFile(handle: FileHandle, buffer: Buffer, options: ScanOptions, emit: (hit: LineHit) => boolean): Promise<boolean> {
  const lines = new LineMatcher(options, emit);
  const decoder = new StringDecoder("utf8");
  // Reading up to the size stat gave spares most files a last read that finds the end.
  let left = options.size > 0 ? options.size : Number.POSITIVE_INFINITY;
  for (let first = true; left > 0; first = false) {
    throwIfAborted(options.signal);
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) break;
    left -= bytesRead;
    const bytes = buffer.subarray(0, bytesRead);
    if (options.binaryQuits && bytes.includes(0)) return true;
    let text = decoder.write(bytes);
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (!lines.feed(text)) return false;
  }
  return lines.end(decoder.end());
}

/** Splits text into lines and decides which to show, keeping only the lines context may still need. */
class LineMatcher {
  private partial = "";
  private skippingLongLine = false;
  private number = 0;
  private lastShown = 0;
  private afterLeft = 0;
  private before: { line: number; text: string }[] = [];

  constructor(
    private readonly options: ScanOptions,
    private readonly emit: (hit: LineHit) => boolean,
  ) {}

  feed(text: string): boolean {
    let start = 0;
    if (this.skippingLongLine) {
      const newline = text.indexOf("\n");
      if (newline === -1) return true;
      this.number++;
      this.skippingLongLine = false;
      start = newline + 1;
    }
    const last = text.lastIndexOf("\n");
    if (last < start) {
      this.extendPartial(text.slice(start));
      return true;
    }
    const block = this.partial + text.slice(start, last);
    this.partial = "";
    this.extendPartial(text.slice(last + 1));
    return this.lines(block);
  }

  end(rest: string): boolean {
    if (!this.feed(rest)) return false;
    if (this.skippingLongLine) this.number++;
    return this.partial === "" ? true : this.line(this.partial);
  }

  private extendPartial(text: string): void {
    if (this.skippingLongLine) return;
    this.partial += text;
    if (this.partial.length > MAX_SEARCHED_LINE_CHARS) {
      this.partial = "";
      this.skippingLongLine = true;
    }
  }

  /** Complete lines, joined by "\n". */
  private lines(block: string): boolean {
    const { block: anyLine } = this.options.pattern;
    if (this.afterLeft === 0 && anyLine !== undefined && !anyLine.test(block)) {
      this.passOver(block);
      return true;
    }
    let start = 0;
    for (let newline = block.indexOf("\n"); newline !== -1; newline = block.indexOf("\n", start)) {
      if (!this.line(block.slice(start, newline))) return false;
      start = newline + 1;
    }
    return this.line(block.slice(start));
  }

  /** Counts lines none of which matches, keeping the last few for the context of a later match. */
  private passOver(block: string): void {
    let count = 1;
    for (let newline = block.indexOf("\n"); newline !== -1; newline = block.indexOf("\n", newline + 1)) count++;
    this.number += count;
    const context = this.options.context;
    if (context === 0) return;
    const tail: { line: number; text: string }[] = [];
    let start = block.length + 1;
    for (let kept = 0; kept < Math.min(context, count); kept++) {
      const end = start - 1;
      start = end === 0 ? 0 : block.lastIndexOf("\n", end - 1) + 1;
      tail.unshift({ line: this.number - kept, text: stripCr(block.slice(start, end)) });
    }
    this.before = [...this.before, ...tail].slice(-context);
  }

  private line(line: string): boolean {
    this.number++;
    const { context, pattern } = this.options;
    const text = stripCr(line);
    if (pattern.line.test(line)) {
      for (const held of this.before) {
        if (held.line > this.lastShown && !this.emit({ kind: "context", ...held })) return false;
      }
      this.before = [];
      this.lastShown = this.number;
      this.afterLeft = context;
      return this.emit({ kind: "match", line: this.number, text });
    }
    if (this.afterLeft > 0) {
      this.afterLeft--;
      this.lastShown = this.number;
      return this.emit({ kind: "context", line: this.number, text });
    }
    if (context > 0) {
      this.before.push({ line: this.number, text });
      if (this.before.length > context) this.before.shift();
    }
    return true;
  }
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
