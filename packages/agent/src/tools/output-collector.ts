import { randomBytes } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { join } from "node:path";
import { formatBytes } from "./format.js";

export interface OutputCollectorOptions {
  headBytes: number;
  tailBytes: number;
  /** Where to spill the whole output once it outgrows head and tail; no spill without it. */
  spillDir?: string;
  /** Spilling stops past this many bytes. */
  maxSpillBytes: number;
}

export interface RenderedOutput {
  text: string;
  truncated: boolean;
  /** The file holding the whole output (or its first `maxSpillBytes`). */
  fullOutputPath?: string;
}

/**
 * Keeps the first and the last bytes of a stream of output, whatever its
 * size: memory holds at most the head, the tail and one chunk. Once the
 * output is too large to keep whole, all of it also goes to a temporary file
 * the model can read or grep.
 */
export class OutputCollector {
  private head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  private totalBytes = 0;
  private spill: WriteStream | undefined;
  private spillPath: string | undefined;
  private spillBytes = 0;
  private spillFailed = false;
  private drainListeners: (() => void)[] = [];

  constructor(private readonly options: OutputCollectorOptions) {}

  /** The spill file, once one was created (even when writing to it failed). */
  get spillFile(): string | undefined {
    return this.spillPath;
  }

  /** Bytes held in memory now. */
  get retainedBytes(): number {
    return this.headSize + this.tailSize;
  }

  /** False when the spill file is behind: pause the source until `onDrain`. */
  append(chunk: Buffer): boolean {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headSize < this.options.headBytes) {
      const part = rest.subarray(0, this.options.headBytes - this.headSize);
      this.head.push(part);
      this.headSize += part.length;
      rest = rest.subarray(part.length);
    }
    if (rest.length > 0) {
      this.tail.push(rest);
      this.tailSize += rest.length;
    }
    const ready = this.writeSpill(chunk);
    while (this.tail.length > 1 && this.tailSize - this.tail[0]!.length >= this.options.tailBytes) {
      this.tailSize -= this.tail.shift()!.length;
    }
    return ready;
  }

  onDrain(listener: () => void): void {
    if (this.spill === undefined || this.spillFailed) listener();
    else this.drainListeners.push(listener);
  }

  /** Flushes and closes the spill file. */
  async close(): Promise<void> {
    const spill = this.spill;
    if (spill === undefined || spill.closed) return;
    await new Promise<void>((resolve) => {
      spill.once("error", () => resolve());
      spill.end(() => resolve());
    });
  }

  render(): RenderedOutput {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    const truncated = this.totalBytes > this.options.headBytes + this.options.tailBytes;
    if (!truncated) return { text: Buffer.concat([head, tail]).toString("utf8"), truncated };
    const shownHead = head.subarray(0, cutAfterLastNewline(head));
    const shownTail = tail.subarray(cutBeforeFirstNewline(tail, tail.length - this.options.tailBytes));
    const dropped = this.totalBytes - shownHead.length - shownTail.length;
    const where = this.spillNotice();
    const text = `${shownHead.toString("utf8")}\n[... ${formatBytes(dropped)} of output omitted here${where} ...]\n${shownTail.toString("utf8")}`;
    return this.spillPath !== undefined && !this.spillFailed ? { text, truncated, fullOutputPath: this.spillPath } : { text, truncated };
  }

  private spillNotice(): string {
    if (this.spillPath === undefined || this.spillFailed) return "";
    if (this.spillBytes < this.totalBytes) return `; the first ${formatBytes(this.spillBytes)} are in ${this.spillPath}`;
    return `; the full output is in ${this.spillPath}`;
  }

  /** Called with each chunk after head and tail took it, before the tail is trimmed. */
  private writeSpill(chunk: Buffer): boolean {
    const { spillDir, headBytes, tailBytes, maxSpillBytes } = this.options;
    if (spillDir === undefined || this.spillFailed) return true;
    if (this.spill === undefined) {
      if (this.totalBytes <= headBytes + tailBytes) return true;
      this.openSpill(spillDir);
      // Nothing is dropped yet: head and tail still hold every byte so far.
      return this.writeCapped(Buffer.concat([...this.head, ...this.tail]), maxSpillBytes);
    }
    return this.writeCapped(chunk, maxSpillBytes);
  }

  private openSpill(dir: string): void {
    this.spillPath = join(dir, `knightcode-bash-${randomBytes(6).toString("hex")}.log`);
    this.spill = createWriteStream(this.spillPath, { flags: "wx", mode: 0o600 });
    this.spill.on("drain", () => this.releaseDrain());
    this.spill.on("error", () => {
      this.spillFailed = true;
      this.releaseDrain();
    });
  }

  private releaseDrain(): void {
    const listeners = this.drainListeners;
    this.drainListeners = [];
    for (const listener of listeners) listener();
  }

  private writeCapped(data: Buffer, max: number): boolean {
    const room = max - this.spillBytes;
    if (room <= 0 || this.spillFailed) return true;
    const part = data.length > room ? data.subarray(0, room) : data;
    this.spillBytes += part.length;
    return this.spill!.write(part);
  }
}

/** Where to end a head: after its last newline, unless that drops more than half; never inside a UTF-8 character. */
function cutAfterLastNewline(head: Buffer): number {
  const newline = head.lastIndexOf(10);
  if (newline >= head.length / 2) return newline + 1;
  let end = head.length;
  while (end > 0 && (head[end - 1]! & 0xc0) === 0x80) end--;
  // `end - 1` is now the lead byte of the last character; drop it when incomplete.
  if (end > 0 && head[end - 1]! >= 0xc0) {
    const needed = head[end - 1]! >= 0xf0 ? 4 : head[end - 1]! >= 0xe0 ? 3 : 2;
    if (head.length - (end - 1) < needed) return end - 1;
  }
  return head.length;
}

/** Where to start a tail of at most `tail.length - from` bytes: after a newline near its start, else at a character boundary. */
function cutBeforeFirstNewline(tail: Buffer, from: number): number {
  let start = Math.max(0, from);
  if (start > 0 && tail[start - 1] === 10) return start;
  const newline = tail.indexOf(10, start);
  if (newline !== -1 && newline - start < (tail.length - start) / 2) return newline + 1;
  while (start < tail.length && (tail[start]! & 0xc0) === 0x80) start++;
  return start;
}
