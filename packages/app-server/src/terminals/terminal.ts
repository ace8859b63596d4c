import type { Launched } from "@knightcode/system/process/launch";
import type { PtyLaunched } from "@knightcode/system/process/pty-launch";
import { rpcError } from "../rpc/errors.js";

export type OutputStream = "stdout" | "stderr" | "pty";

/** How a command ended, as command/exec/exited says it. */
export interface TerminalEnd {
  exitCode: number | null;
  signal: string | null;
  truncated: boolean;
}

/** A command's process as a Terminal drives it, on pipes or on a terminal. */
export interface TerminalChild {
  readonly tty: boolean;
  onOutput(listener: (stream: OutputStream, chunk: Buffer) => void): void;
  write(data: Buffer): void;
  closeInput(): void;
  resize(cols: number, rows: number): void;
  /** Stops the command's whole process group. */
  stop(graceMs: number): void;
  /** Settles once it exited and its output was read; never rejects. */
  readonly done: Promise<{ code: number | null; signal: string | null }>;
}

/** Input a command does not read yet: past this much, a write is refused rather than held. */
const MAX_PENDING_INPUT = 1024 * 1024;

export function pipeChild(run: Launched): TerminalChild {
  const stdin = run.stdin;
  return {
    tty: false,
    onOutput: (listener) => {
      run.stdout.on("data", (chunk: Buffer) => listener("stdout", chunk));
      run.stderr.on("data", (chunk: Buffer) => listener("stderr", chunk));
    },
    write: (data) => {
      if (stdin === null || stdin.writableEnded || stdin.destroyed) throw rpcError("invalidParams", "the process's stdin is closed");
      if (stdin.writableLength + data.length > MAX_PENDING_INPUT) {
        throw rpcError("invalidParams", `the process is not reading its stdin: ${stdin.writableLength} bytes still wait`);
      }
      stdin.write(data);
    },
    closeInput: () => stdin?.end(),
    resize: () => {
      throw rpcError("invalidParams", "the process has no terminal to resize: start it with tty: true");
    },
    stop: (graceMs) => run.stop(graceMs),
    done: run.done.then(
      (end) => ({ code: end.code, signal: end.signal }),
      () => ({ code: null, signal: null }),
    ),
  };
}

/** The end-of-file character a terminal's line discipline takes by default (^D). */
const EOF = Buffer.from([4]);

export function ptyChild(run: PtyLaunched): TerminalChild {
  return {
    tty: true,
    onOutput: (listener) => {
      run.onData((chunk) => listener("pty", chunk));
    },
    write: (data) => {
      if (data.length > 0) run.write(data);
    },
    closeInput: () => run.write(EOF),
    resize: (cols, rows) => run.resize(cols, rows),
    stop: (graceMs) => run.stop(graceMs),
    done: run.done,
  };
}

export interface TerminalOptions {
  child: TerminalChild;
  maxOutputBytes: number;
  killGraceMs: number;
  output(stream: OutputStream, data: Buffer): void;
  exited(end: TerminalEnd): void;
  /** Sending the end failed: nothing is left to tell but the log. */
  failed(error: unknown): void;
}

/**
 * One command a client runs: its output passed on as it comes, up to the
 * cap, where it is cut and the command stopped (so nothing it prints is
 * held beyond the cap), and its end. Nothing is passed on until `open`,
 * so the answer naming the process goes first. Whatever the command left
 * running goes with it when it ends.
 */
export class Terminal {
  private sent = 0;
  private truncated = false;
  private inputClosed = false;
  private held: Array<[OutputStream, Buffer]> | undefined = [];
  private end: TerminalEnd | undefined;
  private isOpen = false;

  constructor(private readonly options: TerminalOptions) {
    options.child.onOutput((stream, chunk) => this.output(stream, chunk));
    options.child.done.then((end) => this.finished(end)).catch(options.failed);
  }

  get tty(): boolean {
    return this.options.child.tty;
  }

  /** The answer went out: what was held is sent, and from now on as it comes. */
  open(): void {
    if (this.isOpen) return;
    this.isOpen = true;
    for (const [stream, data] of this.held ?? []) this.options.output(stream, data);
    this.held = undefined;
    if (this.end !== undefined) this.options.exited(this.end);
  }

  write(data: Buffer, closeInput: boolean): void {
    if (this.inputClosed) throw rpcError("invalidParams", "the process's stdin is closed");
    this.options.child.write(data);
    if (closeInput) {
      this.inputClosed = true;
      this.options.child.closeInput();
    }
  }

  resize(cols: number, rows: number): void {
    this.options.child.resize(cols, rows);
  }

  terminate(): void {
    this.options.child.stop(this.options.killGraceMs);
  }

  private output(stream: OutputStream, chunk: Buffer): void {
    if (this.truncated) return;
    const room = this.options.maxOutputBytes - this.sent;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.sent += part.length;
    if (part.length > 0) {
      if (this.held === undefined) this.options.output(stream, part);
      else this.held.push([stream, Buffer.from(part)]);
    }
    if (chunk.length > room) {
      this.truncated = true;
      this.options.child.stop(this.options.killGraceMs);
    }
  }

  private finished(end: { code: number | null; signal: string | null }): void {
    // What it left running in the background ends with it, as a closed terminal's jobs do.
    this.options.child.stop(this.options.killGraceMs);
    this.end = { exitCode: end.code, signal: end.signal, truncated: this.truncated };
    if (this.isOpen) this.options.exited(this.end);
  }
}
