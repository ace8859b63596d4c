import { spawn } from "node:child_process";
import type { OutputCollector } from "./output-collector.js";

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
  /** Called (throttled by the caller) whenever output arrives. */
  onOutput?: () => void;
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

/**
 * Runs a command as the leader of a new process group with stdin on
 * /dev/null and stdout and stderr merged into `output`. Abort and timeout
 * send SIGTERM to the whole group, then SIGKILL after the grace period, so
 * background children die with it.
 */
export function runInProcessGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const streams = [child.stdout, child.stderr];
    let timedOut = false;
    let aborted = false;
    let killed = false;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let pipeTimer: NodeJS.Timeout | undefined;
    let paused = false;

    const killGroup = (): void => {
      if (killed || child.pid === undefined) return;
      killed = true;
      signalGroup(child.pid, "SIGTERM");
      const pid = child.pid;
      // Not cleared on exit: a child that ignores SIGTERM may outlive the leader.
      setTimeout(() => signalGroup(pid, "SIGKILL"), options.killGraceMs);
    };
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    const timeout =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            killGroup();
          }, options.timeoutMs);

    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      clearTimeout(pipeTimer);
      options.signal?.removeEventListener("abort", onAbort);
      for (const stream of streams) stream.destroy();
      if (error !== undefined) reject(error);
      else resolve({ exitCode: exit?.code ?? null, signal: exit?.signal ?? null, timedOut, aborted });
    };

    const onData = (chunk: Buffer): void => {
      if (!options.output.append(chunk) && !paused) {
        paused = true;
        for (const stream of streams) stream.pause();
        options.output.onDrain(() => {
          paused = false;
          for (const stream of streams) stream.resume();
        });
      }
      options.onOutput?.();
    };
    for (const stream of streams) stream.on("data", onData);

    child.once("error", (error) => finish(error));
    // Output still queued behind a slow spill file is not lost to the grace period.
    const finishUnlessPaused = (): void => {
      if (paused) pipeTimer = setTimeout(finishUnlessPaused, PIPE_GRACE_MS);
      else finish();
    };
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      pipeTimer = setTimeout(finishUnlessPaused, PIPE_GRACE_MS);
    });
    child.once("close", (code, signal) => {
      exit ??= { code, signal };
      finish();
    });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
