import type { ProcessGroups } from "./groups.js";
import { launch, type LaunchEnd } from "./launch.js";
import type { SandboxLaunch } from "./sandbox/command.js";

/** Where the command's output goes; false from `append` pauses the pipes until `onDrain`. */
export interface OutputSink {
  append(chunk: Buffer): boolean;
  onDrain(listener: () => void): void;
}

export interface GroupRunOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  output: OutputSink;
  signal?: AbortSignal;
  /** Milliseconds before the group is killed; none when undefined. */
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Called whenever output arrives (the caller throttles). */
  onOutput?: () => void;
  /** Who owns the group, background jobs included, after the command returns. */
  processes?: ProcessGroups;
  /** The sandbox the command runs in; its background jobs live on in it after the command returns. */
  sandbox?: SandboxLaunch;
}

export interface GroupRunResult {
  /** Null when a signal ended the command. */
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
 * Runs a shell command (the bash tool's) as the leader of a new process
 * group, stdin on /dev/null, stdout and stderr into `output`, which may
 * slow the pipes down while its spill file catches up. Abort, timeout and
 * a leader killed by a signal stop the whole group; background jobs stay
 * with `processes` after the command returns.
 */
export async function runInProcessGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  const run = launch({
    file: options.file,
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    ...(options.processes ? { processes: options.processes } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox, keepBackground: true } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    killGraceMs: options.killGraceMs,
    pipeGraceMs: PIPE_GRACE_MS,
  });
  let paused = false;
  const onData = (chunk: Buffer): void => {
    if (!options.output.append(chunk) && !paused) {
      paused = true;
      run.stdout.pause();
      run.stderr.pause();
      options.output.onDrain(() => {
        paused = false;
        run.stdout.resume();
        run.stderr.resume();
      });
    }
    options.onOutput?.();
  };
  run.stdout.on("data", onData);
  run.stderr.on("data", onData);
  const end: LaunchEnd = await run.done;
  return { exitCode: end.code, signal: end.signal, timedOut: end.timedOut, aborted: end.aborted };
}
