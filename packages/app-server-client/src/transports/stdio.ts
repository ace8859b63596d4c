import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { LineFramer, decodeUtf8 } from "@knightcode/app-server-protocol";
import { TransportEvents } from "./events.js";

export interface SpawnTransportOptions {
  command: string;
  args?: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** What to do with the server's stderr: its log. Defaults to passing it through. */
  stderr?: "inherit" | "pipe" | "ignore";
  maxLineBytes?: number;
}

/** A transport over a spawned server's stdin and stdout, one JSON message per line. */
export class SpawnedServerTransport extends TransportEvents {
  readonly child: ChildProcess;
  /**
   * Resolves with the exit code (or signal name) once the process has
   * exited, or with `error` when it never started (a command not found).
   */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>;

  constructor(options: SpawnTransportOptions) {
    super();
    const spawnOptions: SpawnOptions = {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", options.stderr ?? "inherit"],
    };
    this.child = spawn(options.command, options.args ?? [], spawnOptions);
    const framer = new LineFramer({
      maxLineBytes: options.maxLineBytes ?? 64 * 1024 * 1024,
      onLine: (line) => {
        // Undecodable or blank lines still go up: the client reports them as protocol violations.
        const text = decodeUtf8(line) ?? line.toString("utf8");
        this.messages.emit(text);
      },
      onOversized: () => undefined,
    });
    this.child.stdout!.on("data", (chunk: Buffer) => framer.push(chunk));
    this.child.stdout!.on("end", () => framer.end());
    // A server that exits while we write gets EPIPE; the exit itself is the news.
    this.child.stdin!.on("error", () => undefined);
    let settle!: (exit: { code: number | null; signal: NodeJS.Signals | null; error?: Error }) => void;
    this.exited = new Promise((resolve) => (settle = resolve));
    this.child.on("exit", (code, signal) => settle({ code, signal }));
    this.child.on("error", (error) => {
      // A process that never started has no exit to report: its spawn error is the end.
      if (this.child.pid === undefined) settle({ code: null, signal: null, error });
      this.finish(error);
    });
    this.child.on("close", (code, signal) => {
      this.finish(code === 0 ? undefined : new Error(`server exited with ${signal ?? `code ${code}`}`));
    });
  }

  send(text: string): void {
    if (this.closed || this.child.stdin!.destroyed) return;
    this.child.stdin!.write(text + "\n");
  }

  /** Closes stdin, which asks the server to shut down; the transport closes when it exits. */
  close(): void {
    if (!this.child.stdin!.destroyed) this.child.stdin!.end();
  }
}
