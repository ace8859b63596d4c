import type { Readable } from "node:stream";
import { LineFramer, decodeUtf8 } from "@knightcode/app-server-protocol";
import { Gathering } from "./gathering.js";
import type { ProtocolOutput } from "./stdout-guard.js";
import { MAX_LINE_BYTES, MAX_PENDING_OUTPUT_BYTES, TransportEvents, type ServerTransport, type TransportFault } from "./types.js";

/** A batch this large is written at once rather than at the end of the event-loop turn. */
const BATCH_LIMIT = 256 * 1024;

export interface StdioTransportOptions {
  input: Readable;
  output: ProtocolOutput;
  maxLineBytes?: number;
  maxPendingOutputBytes?: number;
}

/**
 * Newline-delimited JSON over the process's stdin and stdout. Input is framed
 * on LF bytes only; output that the client leaves unread past the limit aborts
 * the connection instead of growing without bound.
 */
export class StdioTransport extends TransportEvents implements ServerTransport {
  private readonly maxPendingOutputBytes: number;
  private inputStopped = false;
  private closed = false;
  /** Messages queued and not yet written, written out together (see Gathering for when). */
  private batch: string[] = [];
  private batchBytes = 0;
  private readonly gathering = new Gathering({
    opened: () => this.writeOut(),
    // The batch holds what is queued until the next write.
    held: () => undefined,
    flushed: () => this.writeOut(),
    closed: () => this.writeOut(),
  });

  constructor(private readonly options: StdioTransportOptions) {
    super();
    this.maxPendingOutputBytes = options.maxPendingOutputBytes ?? MAX_PENDING_OUTPUT_BYTES;
    const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    const framer = new LineFramer({
      maxLineBytes,
      onLine: (line) => this.deliver(line),
      onOversized: (bytes) => this.fault({ kind: "lineTooLong", message: `dropped a line of ${bytes} bytes: lines are limited to ${maxLineBytes} bytes` }),
    });
    const input = options.input;
    input.on("data", (chunk: Buffer) => {
      if (!this.inputStopped) framer.push(chunk);
    });
    input.on("end", () => {
      if (!this.inputStopped) framer.end();
      this.endInput();
    });
    input.on("error", () => this.endInput());
    const stream = options.output.stream;
    stream.on("error", (error: Error) => this.close(error));
    const drained = () => this.drains.emit();
    stream.on("drain", drained);
    this.closes.add(() => stream.off("drain", drained));
  }

  backlog(): number {
    return this.batchBytes + this.options.output.stream.writableLength;
  }

  send(text: string): void {
    if (this.closed) return;
    this.queue(text);
    this.gathering.added();
  }

  sendSoon(text: string): void {
    if (this.closed) return;
    this.queue(text);
    this.gathering.addSoon();
  }

  sendLater(text: string): void {
    if (this.closed) return;
    this.gathering.addLater();
    this.queue(text);
  }

  sendTogether(text: string): void {
    if (this.closed) return;
    this.gathering.addTogether();
    this.queue(text);
  }

  private queue(text: string): void {
    this.batch.push(text);
    this.batchBytes += text.length + 1;
    if (this.batchBytes >= BATCH_LIMIT) this.writeOut();
  }

  /**
   * A large message in parts, each written as it comes: encoding the next
   * overlaps the client's reading of the last, where one write would first
   * copy and encode the whole text. What was queued before goes out first.
   */
  sendParts(parts: readonly string[]): void {
    if (this.closed) return;
    this.writeOut();
    for (let i = 0; i < parts.length && !this.closed; i++) {
      this.writeChecked(i === parts.length - 1 ? `${parts[i]}\n` : parts[i]!);
    }
  }

  private writeOut(): void {
    if (this.batch.length === 0 || this.closed) return;
    const chunk = this.batch.join("\n") + "\n";
    this.batch = [];
    this.batchBytes = 0;
    this.writeChecked(chunk);
  }

  private writeChecked(chunk: string): void {
    this.options.output.write(chunk);
    if (this.options.output.stream.writableLength > this.maxPendingOutputBytes) {
      this.close(new Error(`more than ${this.maxPendingOutputBytes} bytes of output left unread`));
    }
  }

  stopInput(): void {
    if (this.inputStopped) return;
    this.inputStopped = true;
    this.options.input.pause();
    this.endInput();
  }

  flush(): Promise<void> {
    this.writeOut();
    if (this.closed || this.options.output.stream.writableLength === 0) return Promise.resolve();
    // Writes complete in order, so an empty write's callback means everything before it is out.
    return new Promise((resolve) => {
      const stop = this.closes.add(() => resolve());
      this.options.output.write("", () => {
        stop();
        resolve();
      });
    });
  }

  close(reason?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.stopInput();
    this.closes.emit(reason);
    this.detachAll();
  }

  private deliver(line: Buffer): void {
    if (this.inputStopped) return;
    const text = decodeUtf8(line);
    if (text === undefined) {
      this.fault({ kind: "parseError", message: "a line was not valid UTF-8" });
      return;
    }
    if (text.trim() === "") return;
    this.messages.emit(text);
  }

  private fault(fault: TransportFault): void {
    this.faults.emit(fault);
  }

  private endedInput = false;

  private endInput(): void {
    if (this.endedInput) return;
    this.endedInput = true;
    this.inputEnd.emit();
  }
}
