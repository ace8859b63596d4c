import { randomBytes } from "node:crypto";
import { fdatasyncSync, ftruncateSync, readSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionFileError } from "./errors.js";
import { publishBytesExclusive } from "./publish.js";
import type { SessionIssue } from "./scan.js";

/** Bytes after the last whole line, left by a crash mid-write. */
export interface TornTail {
  offset: number;
  end: number;
  line: number;
}

/** Low-level writes for the owner: whole lines or nothing, on an O_APPEND descriptor. */
export class LineAppender {
  /** Set when a rollback itself failed: the file must be cut back here before anything else. */
  private cutBackTo: number | undefined;

  constructor(
    readonly fd: number,
    readonly path: string,
    private bytes: number,
    private tornTail: TornTail | undefined,
    private needsNewline: boolean,
  ) {}

  /** The file's size as this owner last left it. */
  get size(): number {
    return this.bytes;
  }

  /**
   * Moves a torn tail to a sibling file, then cuts the transcript back to its
   * last whole line, so the next line starts clean. The bytes are kept, never
   * destroyed: they may be all that is left of a reply.
   */
  repairTail(): SessionIssue | undefined {
    const torn = this.tornTail;
    if (torn === undefined) return undefined;
    const bytes = Buffer.allocUnsafe(torn.end - torn.offset);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(this.fd, bytes, read, bytes.length - read, torn.offset + read);
      if (n === 0) break;
      read += n;
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const movedTo = join(dirname(this.path), `${basename(this.path)}.torn-${stamp}-${randomBytes(3).toString("hex")}`);
    publishBytesExclusive(movedTo, bytes.subarray(0, read));
    this.truncate(torn.offset, "could not cut the torn tail");
    this.sync();
    this.tornTail = undefined;
    this.bytes = torn.offset;
    const message = `${read} torn bytes at the end of the file were moved to ${movedTo}`;
    return { kind: "tornMovedAside", line: torn.line, offset: torn.offset, message, movedTo };
  }

  get needsRepair(): boolean {
    return this.tornTail !== undefined;
  }

  /**
   * Writes `line` and its LF with one write. A short or failed write is cut
   * back to the previous size, so the file never keeps half a line from us.
   * Returns the offset where the line starts.
   */
  appendLine(line: string, durable: boolean): { offset: number; length: number } {
    this.settle();
    const lead = this.needsNewline ? "\n" : "";
    const data = Buffer.from(`${lead}${line}\n`);
    const before = this.bytes;
    let written = 0;
    let cause: unknown;
    try {
      // A short write is allowed to happen; the next one either goes on or says why (ENOSPC, EIO).
      while (written < data.length) {
        const n = writeSync(this.fd, data, written, data.length - written, null);
        if (n <= 0) break;
        written += n;
      }
      if (written === data.length && durable) fdatasyncSync(this.fd);
    } catch (error) {
      cause = error;
    }
    if (written !== data.length || cause !== undefined) {
      this.cutBackTo = before;
      this.truncate(before, "a failed write could not be undone");
      const why = cause === undefined ? `only ${written} of ${data.length} bytes were written` : (cause as Error).message;
      throw new SessionFileError("writeFailed", `could not append to ${this.path}: ${why}`, { path: this.path, cause });
    }
    this.needsNewline = false;
    this.bytes = before + data.length;
    return { offset: before + lead.length, length: data.length - lead.length - 1 };
  }

  /** Finishes undoing an earlier failed write whose cut-back failed, before the file is looked at again. */
  settle(): void {
    if (this.cutBackTo !== undefined) this.truncate(this.cutBackTo, "an earlier failed write could not be undone");
  }

  sync(): void {
    try {
      fdatasyncSync(this.fd);
    } catch (error) {
      throw new SessionFileError("writeFailed", `could not sync ${this.path}: ${(error as Error).message}`, { path: this.path, cause: error });
    }
  }

  private truncate(size: number, why: string): void {
    try {
      ftruncateSync(this.fd, size);
      this.cutBackTo = undefined;
    } catch (error) {
      throw new SessionFileError("writeFailed", `${why} in ${this.path}: ${(error as Error).message}`, { path: this.path, cause: error });
    }
  }
}
