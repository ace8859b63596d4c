import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import type { OutputCollector } from "./output-collector.js";
import { unownedProcessGroups, type ProcessGroup, type ProcessGroups } from "./process-groups.js";

export interface GroupRunOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  output: OutputCollector;
  signal?: AbortSignal;
  /** Milliseconds before the group is killed; none when undefined. */
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Called whenever output arrives (the caller throttles). */
  onOutput?: () => void;
  /** Who owns the group, background jobs included, after the command returns. */
  processes?: ProcessGroups;
}

export interface GroupRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
}

/**
 * How long to keep reading after the shell exits: a background process that
 * inherited the pipes would otherwise hold the call open until it ends.
 */
const PIPE_GRACE_MS = 250;
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs a command as the leader of a new process group with stdin on
 * /dev/null, its stdout and stderr going to `output`. Abort, timeout and a
 * leader killed by a signal send SIGTERM to the whole group, then SIGKILL
 * after the grace period, so background children die with it. The group
 * stays with `processes` (by default the process-wide owner) until it is
 * gone.
 */
export function runInProcessGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  return new Promise((resolve, reject) => new GroupRun(options, resolve, reject).start());
}

class GroupRun {
  private readonly child: ChildProcessByStdio<null, Readable, Readable>;
  private readonly group: ProcessGroup | undefined;
  private timedOut = false;
  private aborted = false;
  private killed = false;
  private settled = false;
  private paused = false;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private timeout: NodeJS.Timeout | undefined;
  private pipeTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => {
    this.aborted = true;
    this.killGroup();
  };

  constructor(
    private readonly options: GroupRunOptions,
    private readonly resolve: (result: GroupRunResult) => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.child = spawn(options.file, options.args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    // Without a pid the spawn failed and the error event settles the run.
    if (this.child.pid !== undefined) this.group = (options.processes ?? unownedProcessGroups()).add(this.child.pid);
  }

  start(): void {
    const { child, options } = this;
    for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => this.onData(chunk));
    child.once("error", (error) => this.finish(error));
    child.once("exit", (code, signal) => {
      this.exit = { code, signal };
      // A shell killed from outside did not finish its command: what it was running would go on
      // unseen, orphaned and holding the pipes, so the rest of the group is stopped as on a timeout.
      if (signal !== null) this.killGroup();
      this.pipeTimer = setTimeout(() => this.finishUnlessPaused(), PIPE_GRACE_MS);
    });
    child.once("close", (code, signal) => {
      this.exit ??= { code, signal };
      this.finish();
    });
    // Longer than a timer can wait (about 24.8 days) is no limit at all.
    if (options.timeoutMs !== undefined && options.timeoutMs <= MAX_TIMER_MS) {
      this.timeout = setTimeout(() => {
        this.timedOut = true;
        this.killGroup();
      }, options.timeoutMs);
    }
    if (options.signal?.aborted) this.onAbort();
    else options.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  private onData(chunk: Buffer): void {
    if (!this.options.output.append(chunk) && !this.paused) {
      this.paused = true;
      this.child.stdout.pause();
      this.child.stderr.pause();
      this.options.output.onDrain(() => {
        this.paused = false;
        this.child.stdout.resume();
        this.child.stderr.resume();
      });
    }
    this.options.onOutput?.();
  }

  /** Output still queued behind a slow spill file is not lost to the grace period. */
  private finishUnlessPaused(): void {
    if (this.paused) this.pipeTimer = setTimeout(() => this.finishUnlessPaused(), PIPE_GRACE_MS);
    else this.finish();
  }

  private killGroup(): void {
    if (this.killed || this.group === undefined) return;
    this.killed = true;
    this.group.stop(this.options.killGraceMs).catch(() => undefined);
  }

  private finish(error?: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timeout);
    clearTimeout(this.pipeTimer);
    this.options.signal?.removeEventListener("abort", this.onAbort);
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    // A group without background jobs is forgotten now rather than at the owner's next look.
    this.group?.isAlive();
    if (error !== undefined) this.reject(error);
    else this.resolve({ exitCode: this.exit?.code ?? null, signal: this.exit?.signal ?? null, timedOut: this.timedOut, aborted: this.aborted });
  }
}
