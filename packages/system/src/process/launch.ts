import { spawn, type ChildProcess } from "node:child_process";
import { delimiter, isAbsolute } from "node:path";
import type { Readable, Writable } from "node:stream";
import { withGitGuards } from "./git-guards.js";
import { unownedProcessGroups, type ProcessGroup, type ProcessGroups } from "./groups.js";
import { pipesBack, sandboxCommand, type SandboxLaunch } from "./sandbox/command.js";

/**
 * Everything the server starts for the model, a repository or an
 * extension is started here, and nowhere else: the bash tool, extensions'
 * `exec`, stdio MCP servers, environment scripts, git, gh, rg and fd.
 */
export interface LaunchOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  /**
   * The child's environment, already without the server's secrets (see
   * childEnvironment). git's guards are added and relative PATH entries,
   * which would name programs in whatever folder the child runs in, removed.
   */
  env: NodeJS.ProcessEnv;
  /** /dev/null by default; "pipe" for a caller that writes (git's input, an MCP server). */
  stdin?: "ignore" | "pipe";
  /** Owns the child's process group (a thread's, so it dies with the thread); the process-wide owner by default. */
  processes?: ProcessGroups;
  /** Runs the child inside the sandbox described there; unsandboxed without it. */
  sandbox?: SandboxLaunch;
  /**
   * For a shell command in the sandbox: what it left running in the
   * background keeps running after the command returns (until it ends, or
   * the owner stops the group), as it would outside. Without it, the
   * sandbox ends with its first process.
   */
  keepBackground?: boolean;
  signal?: AbortSignal;
  /** Milliseconds before the group is stopped as on an abort; none when undefined. */
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL when the group is stopped; 0 sends SIGKILL at once. */
  killGraceMs: number;
  /**
   * After the program exits, how long its output is still read: a
   * background process holding the pipes must not hold the caller. Without
   * it the run ends when the pipes close.
   */
  pipeGraceMs?: number;
}

export interface LaunchEnd {
  /** Null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * How long output is still read after a sandboxed command reported its
 * exit while its sandbox lives on: everything it wrote is in the pipe by
 * then, and is read at the next turn of the loop.
 */
const DEFAULT_PIPE_GRACE_MS = 250;

/**
 * A started child: the leader of a new process group its owner holds
 * until the group is gone. Abort and timeout stop the whole group (SIGTERM,
 * then SIGKILL after the grace), and so does the leader's death by a
 * signal: what it was running did not finish, and would otherwise go on
 * unseen, orphaned and holding the pipes. `done` settles once the program
 * exited and its pipes closed (or the pipe grace ran out); it rejects only
 * when the program could not be started.
 */
export class Launched {
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly done: Promise<LaunchEnd>;
  /** Settles once the program is running, or could not be started. */
  readonly spawned: Promise<void>;
  private readonly child: ChildProcess;
  private readonly group: ProcessGroup | undefined;
  private timedOut = false;
  private aborted = false;
  private stopped = false;
  private settled = false;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** stdout and stderr until they close: with the exit known, the run is over when both have. */
  private openPipes = 2;
  private timeout: NodeJS.Timeout | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  private resolveDone!: (end: LaunchEnd) => void;
  private rejectDone!: (error: Error) => void;
  private readonly onAbort = (): void => {
    this.aborted = true;
    this.stop();
  };

  constructor(private readonly options: LaunchOptions) {
    this.done = new Promise<LaunchEnd>((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    // A caller that only waits for `spawned` must not leave this rejection unhandled.
    this.done.catch(() => undefined);
    const command = launchCommand(options);
    const statusPipe = command.statusPipe;
    this.child = spawn(command.file, command.args, {
      cwd: options.cwd,
      env: command.env,
      detached: true,
      stdio: [options.stdin ?? "ignore", "pipe", "pipe", ...(statusPipe ? (["pipe"] as const) : [])],
      windowsHide: true,
    });
    this.spawned = new Promise<void>((resolve, reject) => {
      this.child.once("spawn", resolve);
      this.done.catch(reject);
    });
    this.spawned.catch(() => undefined);
    this.stdin = this.child.stdin;
    this.stdout = this.child.stdout!;
    this.stderr = this.child.stderr!;
    // Without a pid the spawn failed, and the error event settles the run.
    if (this.child.pid !== undefined) this.group = (options.processes ?? unownedProcessGroups()).add(this.child.pid);
    this.stdin?.on("error", () => undefined);
    this.child.once("error", (error) => this.fail(error));
    this.child.once("exit", (code, signal) => this.exited(code, signal));
    for (const stream of [this.stdout, this.stderr]) {
      stream.once("close", () => {
        this.openPipes--;
        this.finishIfDone();
      });
    }
    if (statusPipe) this.readStatus(this.child.stdio[3] as Readable);
    if (options.timeoutMs !== undefined && options.timeoutMs <= MAX_TIMER_MS) {
      this.timeout = setTimeout(() => {
        this.timedOut = true;
        this.stop();
      }, options.timeoutMs);
    }
    if (options.signal?.aborted) this.onAbort();
    else options.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Stops the whole group, once (SIGTERM, then SIGKILL after the grace). */
  stop(graceMs = this.options.killGraceMs): void {
    if (this.stopped || this.group === undefined) return;
    this.stopped = true;
    this.group.stop(graceMs).catch(() => undefined);
  }

  /** The shell in the sandbox says on a pipe of its own that the command starts, then, keeping its background, its own exit: the sandbox lives on while its background does. */
  private readStatus(pipe: Readable): void {
    let text = "";
    pipe.setEncoding("utf8");
    pipe.on("data", (chunk: string) => {
      text += chunk;
      const line = /^started\n(\d{1,3})\n/.exec(text);
      if (line !== null && this.exit === undefined) this.exited(Number(line[1]), null, false);
    });
    pipe.on("error", () => undefined);
  }

  private exited(code: number | null, signal: NodeJS.Signals | null, leaderGone = true): void {
    if (leaderGone) afterLeader(this.options.sandbox, signal, this.group, () => this.stop());
    if (this.exit !== undefined) return;
    this.exit = { code, signal };
    // The sandbox outlives a command that left processes behind, and bubblewrap holds the pipes till then: only a grace can end the read.
    const grace = this.options.pipeGraceMs ?? (leaderGone ? undefined : DEFAULT_PIPE_GRACE_MS);
    if (grace !== undefined) this.graceTimer = setTimeout(() => this.finishUnlessPaused(grace), grace);
    this.finishIfDone();
  }

  private finishIfDone(): void {
    if (this.exit !== undefined && this.openPipes === 0) this.finish();
  }

  /** Output a slow reader paused is still wanted: the grace waits for it. */
  private finishUnlessPaused(grace: number): void {
    if (this.stdout.isPaused() || this.stderr.isPaused()) this.graceTimer = setTimeout(() => this.finishUnlessPaused(grace), grace);
    else this.finish();
  }

  private cleanUp(): void {
    clearTimeout(this.timeout);
    clearTimeout(this.graceTimer);
    this.options.signal?.removeEventListener("abort", this.onAbort);
  }

  private fail(error: Error): void {
    // A kill that failed changes nothing; only a spawn that failed ends the run.
    if (this.child.pid !== undefined || this.settled) return;
    this.settled = true;
    this.cleanUp();
    this.rejectDone(error);
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    this.cleanUp();
    this.stdout.destroy();
    this.stderr.destroy();
    // A group without background jobs is forgotten now rather than at the owner's next look.
    this.group?.isAlive();
    this.resolveDone({ code: this.exit?.code ?? null, signal: this.exit?.signal ?? null, timedOut: this.timedOut, aborted: this.aborted });
  }
}

/**
 * What the end of a group's leader means for the rest of the group.
 *
 * - bubblewrap's sandbox is meant to die with it (--die-with-parent), but its
 *   init sets that up only after the mounts. A bubblewrap that ends in its
 *   first milliseconds, by our SIGTERM or otherwise, leaves that init running;
 *   it ignores SIGTERM, and goes on to start the command. So whatever is
 *   left of a sandbox's group is killed at once, as the kernel would have.
 * - Outside a sandbox, a leader killed by a signal did not finish what it was
 *   running, which would otherwise go on unseen: the group is stopped.
 */
export function afterLeader(sandbox: SandboxLaunch | undefined, signal: NodeJS.Signals | null, group: ProcessGroup | undefined, stop: () => void): void {
  if (sandbox?.kind === "bwrap") group?.killNow();
  else if (signal !== null) stop();
}

/** What a child of `launch` (or `launchPty`) really runs: its program and arguments, inside the sandbox when one is given, and its environment. */
export interface LaunchCommand {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** The child needs a pipe on fd 3: the sandbox's shell says there that the command starts, and, keeping its background, how it ended (see sandboxCommand). */
  statusPipe: boolean;
}

/**
 * The one place a child's command line and environment are made, for every
 * runner. `canPipe`: whether the runner can give the child fd 3; a
 * terminal's cannot, and its sandbox writes its lifeline on the terminal.
 */
export function launchCommand(options: Pick<LaunchOptions, "file" | "args" | "cwd" | "env" | "sandbox" | "keepBackground">, canPipe = true): LaunchCommand {
  const statusPipe = canPipe && pipesBack(options.sandbox);
  const env = launchEnv(options.env, options.sandbox);
  if (options.sandbox === undefined) return { file: options.file, args: [...options.args], env, statusPipe };
  const keepBackground = statusPipe && options.keepBackground === true;
  const lifeline = canPipe ? "pipe" : "terminal";
  return { ...sandboxCommand(options.sandbox, options.file, options.args, { cwd: options.cwd, keepBackground, lifeline }), env, statusPipe };
}

/** Starts a child; see LaunchOptions and Launched. */
export function launch(options: LaunchOptions): Launched {
  return new Launched(options);
}

/**
 * The environment a child really gets: git's guards added, and no relative
 * PATH entry (an empty one means the current folder), which would run a
 * program of whatever folder the child starts in before the system's.
 * In the sandbox, TMPDIR is its private /tmp and caches go there too.
 */
export function launchEnv(env: NodeJS.ProcessEnv, sandbox?: SandboxLaunch): NodeJS.ProcessEnv {
  const out = withGitGuards(env);
  if (out.PATH !== undefined)
    out.PATH = out.PATH.split(delimiter)
      .filter((dir) => dir !== "" && isAbsolute(dir))
      .join(delimiter);
  if (sandbox !== undefined) Object.assign(out, sandbox.env);
  return out;
}
