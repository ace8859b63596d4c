import { createRequire } from "node:module";
import { constants } from "node:os";
import { unownedProcessGroups, type ProcessGroup } from "./groups.js";
import { afterLeader, launchCommand, type LaunchEnd, type LaunchOptions } from "./launch.js";
import { TERMINAL_LIFELINE_BYTE } from "./sandbox/command.js";

/** What is used of node-pty: `spawn`, and of the terminal it gives, the members below. */
export interface PtyModule {
  spawn(file: string, args: string[], options: { name: string; cols: number; rows: number; cwd: string; env: NodeJS.ProcessEnv; encoding: null }): PtyProcess;
}

interface Disposable {
  dispose(): void;
}

/** A running terminal as node-pty gives it; with `encoding: null` its data are Buffers. */
interface PtyProcess {
  readonly pid: number;
  onData(listener: (data: Buffer | string) => void): Disposable;
  onExit(listener: (event: { exitCode: number; signal?: number }) => void): Disposable;
  write(data: Buffer | string): void;
  resize(cols: number, rows: number): void;
}

/** The module giving terminals: node-pty, an optional dependency built at install. */
export const PTY_MODULE = "node-pty";

const loaded = new Map<string, PtyModule>();

/**
 * node-pty (or the module `specifier` names, for a test that needs it
 * missing), loaded once. Throws with node's own words when it cannot be
 * loaded: not installed, or its native part not built for this Node.
 */
export function loadPty(specifier = PTY_MODULE): PtyModule {
  const known = loaded.get(specifier);
  if (known !== undefined) return known;
  const module = createRequire(import.meta.url)(specifier) as Partial<PtyModule>;
  if (typeof module.spawn !== "function") throw new Error(`${specifier} has no spawn function`);
  loaded.set(specifier, module as PtyModule);
  return module as PtyModule;
}

/** How a terminal's program ended: a code, or the signal that ended it. */
export type PtyEnd = Pick<LaunchEnd, "code" | "signal">;

export interface PtyLaunchOptions extends Pick<LaunchOptions, "file" | "args" | "cwd" | "env" | "processes" | "sandbox" | "killGraceMs"> {
  cols: number;
  rows: number;
}

/** The name a signal number has here ("SIGTERM" for 15); null for none. */
function signalName(signal: number | undefined): NodeJS.Signals | null {
  if (signal === undefined || signal === 0) return null;
  const entry = Object.entries(constants.signals).find(([, number]) => number === signal);
  return (entry?.[0] as NodeJS.Signals | undefined) ?? null;
}

/**
 * A program started on a new pseudo-terminal, with the same command line
 * and environment `launch` gives (the sandbox's wrapper included) and the
 * same ownership: node-pty makes the program a session leader, so its pid
 * names the process group the owner holds and stops. In the sandbox the
 * terminal is private to the command, so nothing outside reads what a
 * process there pushes into its input. Under bubblewrap the sandbox's
 * first byte on the terminal is its lifeline (see sandboxCommand), which
 * no listener is given. `done` settles once the program exited and the
 * terminal's output was read.
 */
export class PtyLaunched {
  readonly done: Promise<PtyEnd>;
  private readonly terminal: PtyProcess;
  private readonly group: ProcessGroup;
  private readonly exitListener: Disposable;
  private stopped = false;
  /** Under bubblewrap, the terminal's first chunk of output, once there is one: where the sandbox's lifeline byte is. */
  private firstChunk: Buffer | string | undefined;

  constructor(
    pty: PtyModule,
    private readonly options: PtyLaunchOptions,
  ) {
    const command = launchCommand(options, false);
    this.terminal = pty.spawn(command.file, command.args, {
      name: "xterm-256color",
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env: command.env,
      encoding: null,
    });
    this.group = (options.processes ?? unownedProcessGroups()).add(this.terminal.pid);
    if (options.sandbox?.kind === "bwrap") {
      // First of the terminal's listeners, so the others know the first chunk when they see it.
      const first = this.terminal.onData((data) => {
        first.dispose();
        this.firstChunk = data;
      });
    }
    let settle!: (end: PtyEnd) => void;
    this.done = new Promise<PtyEnd>((resolve) => {
      settle = resolve;
    });
    // node-pty tells of the exit once the terminal's output has been read (or after its own short wait).
    this.exitListener = this.terminal.onExit((event) => {
      this.exitListener.dispose();
      const signal = signalName(event.signal);
      afterLeader(options.sandbox, signal, this.group, () => this.stop());
      settle({ code: signal === null ? event.exitCode : null, signal });
    });
  }

  get pid(): number {
    return this.terminal.pid;
  }

  /** Every chunk of output, as bytes, the sandbox's lifeline left out; returns the function that stops listening. */
  onData(listener: (chunk: Buffer) => void): () => void {
    const registration = this.terminal.onData((data) => {
      let bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      if (data === this.firstChunk && bytes[0] === TERMINAL_LIFELINE_BYTE) bytes = bytes.subarray(1);
      if (bytes.length > 0) listener(bytes);
    });
    return () => registration.dispose();
  }

  write(data: Buffer): void {
    this.terminal.write(data);
  }

  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
  }

  /** Stops the whole group, once (SIGTERM, then SIGKILL after the grace). */
  stop(graceMs = this.options.killGraceMs): void {
    if (this.stopped) return;
    this.stopped = true;
    this.group.stop(graceMs).catch(() => undefined);
  }
}
