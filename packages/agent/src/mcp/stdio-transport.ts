import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ProcessGroups } from "@knightcode/system/process/groups";
import { launch, type Launched } from "@knightcode/system/process/launch";

/** The SDK's line framing, handed in by the caller that loaded the SDK lazily. */
export interface StdioFraming {
  ReadBuffer: typeof import("@modelcontextprotocol/sdk/shared/stdio.js").ReadBuffer;
  serializeMessage: typeof import("@modelcontextprotocol/sdk/shared/stdio.js").serializeMessage;
}

export interface StdioServerSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The thread's: the server's process group dies with the thread at the latest. */
  processes?: ProcessGroups;
  /** A line of the server's stderr, for the log. */
  onStderrLine(line: string): void;
}

/** How long a server may take to leave once its input closes, and again after SIGTERM. */
const CLOSE_GRACE_MS = 2000;
const MAX_STDERR_LINE = 500;

/**
 * An MCP client transport to a server started through the one runner, so
 * it gets what every child gets (no server secrets, git's guards, no
 * relative PATH entry, a process group its thread owns). One JSON-RPC
 * message per line each way. Closing ends its input, then stops its whole
 * group if it lingers: SIGTERM, and SIGKILL after the grace.
 */
export class RunnerStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private run: Launched | undefined;
  private readonly buffer: InstanceType<StdioFraming["ReadBuffer"]>;
  private closed = false;

  constructor(
    private readonly spec: StdioServerSpec,
    private readonly framing: StdioFraming,
  ) {
    this.buffer = new framing.ReadBuffer();
  }

  get pid(): number | undefined {
    return this.run?.pid;
  }

  async start(): Promise<void> {
    if (this.run !== undefined) throw new Error("the MCP server is already started");
    const run = launch({
      file: this.spec.command,
      args: this.spec.args,
      cwd: this.spec.cwd,
      env: this.spec.env,
      stdin: "pipe",
      ...(this.spec.processes ? { processes: this.spec.processes } : {}),
      killGraceMs: CLOSE_GRACE_MS,
    });
    this.run = run;
    run.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
    this.readStderr(run);
    run.done.then(
      () => this.ended(),
      () => this.ended(),
    );
    await run.spawned;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.run?.stdin;
    if (stdin === null || stdin === undefined || this.closed) return Promise.reject(new Error("the MCP server is not running"));
    return new Promise((resolve) => {
      if (stdin.write(this.framing.serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const run = this.run;
    if (run === undefined || this.closed) return;
    this.closed = true;
    run.stdin?.end();
    if (await finishedWithin(run, CLOSE_GRACE_MS)) return;
    run.stop();
    await finishedWithin(run, 2 * CLOSE_GRACE_MS);
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      // Past the SDK's bound for one message: the stream can no longer be framed.
      this.onerror?.(error as Error);
      this.close().catch(() => undefined);
      return;
    }
    for (;;) {
      try {
        const message = this.buffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        // One line that is not a message is dropped (it was read past); the next may be fine.
        this.onerror?.(error as Error);
      }
    }
  }

  private readStderr(run: Launched): void {
    let pending = "";
    run.stderr.on("data", (chunk: Buffer) => {
      const lines = (pending + chunk.toString("utf8")).split("\n");
      pending = lines.pop()!.slice(-MAX_STDERR_LINE);
      for (const line of lines) if (line.trim() !== "") this.spec.onStderrLine(line.slice(0, MAX_STDERR_LINE));
    });
  }

  private ended(): void {
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}

/** Whether the run ended within `ms`; the timer never holds the process open. */
function finishedWithin(run: Launched, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    run.done.then(
      () => (clearTimeout(timer), resolve(true)),
      () => (clearTimeout(timer), resolve(true)),
    );
  });
}
