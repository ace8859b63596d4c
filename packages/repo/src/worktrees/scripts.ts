import { StringDecoder } from "node:string_decoder";
import type { ProcessGroups } from "@knightcode/system/process/groups";
import { launch, type LaunchEnd } from "@knightcode/system/process/launch";

/** At most this much output goes into one report: a client gets it in pieces. */
export const SCRIPT_CHUNK_CHARS = 16 * 1024;
/** Output past this much is dropped, with one line saying so. */
export const SCRIPT_OUTPUT_MAX = 1024 * 1024;
/** How long after the shell exits its pipes are still read: a background job holding them must not hold the run. */
const PIPE_GRACE_MS = 250;

export interface ScriptOptions {
  /** The script, as the user wrote it in environments.json. */
  script: string;
  /** The worktree: the script's folder and its KNIGHTCODE_WORKTREE_PATH. */
  worktree: string;
  /** The environment it gets (a thread's child environment), before KNIGHTCODE_WORKTREE_PATH is added. */
  env: NodeJS.ProcessEnv;
  /** Who owns its process group (a thread's, so it dies with the thread). */
  processes: ProcessGroups;
  /** Its stdout and stderr, interleaved as they come, in pieces of at most SCRIPT_CHUNK_CHARS. */
  onOutput(text: string): void;
  /** Stops it (the whole group), as does `timeoutMs`. */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Stop what it left running in the background once it exits (a cleanup's leftovers). */
  stopLeftovers?: boolean;
  killGraceMs?: number;
}

export interface ScriptResult {
  /** Null when a signal ended it. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** What stopped it when it did not end by itself; undefined otherwise. */
  error?: string;
}

/**
 * Runs an environment's setup or cleanup script with `/bin/sh -c` in the
 * worktree, as the leader of a process group its owner kills when the
 * thread closes or the server exits. The script is the user's own code,
 * chosen for a trusted project; it is the one program worktree creation
 * runs.
 */
export async function runWorktreeScript(options: ScriptOptions): Promise<ScriptResult> {
  const run = launch({
    file: "/bin/sh",
    args: ["-c", options.script],
    cwd: options.worktree,
    env: { ...options.env, KNIGHTCODE_WORKTREE_PATH: options.worktree },
    processes: options.processes,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    killGraceMs: options.killGraceMs ?? 2000,
    pipeGraceMs: PIPE_GRACE_MS,
  });
  const output = new BoundedOutput(options.onOutput);
  const decoders = [new StringDecoder("utf8"), new StringDecoder("utf8")] as const;
  run.stdout.on("data", (chunk: Buffer) => output.add(decoders[0].write(chunk)));
  run.stderr.on("data", (chunk: Buffer) => output.add(decoders[1].write(chunk)));
  let end: LaunchEnd | undefined;
  let error: string | undefined;
  try {
    end = await run.done;
  } catch (failure) {
    error = (failure as Error).message;
  }
  for (const decoder of decoders) output.add(decoder.end());
  output.flush();
  if (options.stopLeftovers) run.stop();
  return { exitCode: end?.code ?? null, signal: end?.signal ?? null, timedOut: end?.timedOut ?? false, ...(error !== undefined ? { error } : {}) };
}

/** Output in pieces of at most SCRIPT_CHUNK_CHARS, up to SCRIPT_OUTPUT_MAX in all, then one line saying the rest was dropped. */
class BoundedOutput {
  private pending = "";
  private sent = 0;
  private cut = false;

  constructor(private readonly emit: (text: string) => void) {}

  add(text: string): void {
    if (text === "" || this.cut) return;
    const room = SCRIPT_OUTPUT_MAX - this.sent - this.pending.length;
    if (text.length > room) {
      this.pending += text.slice(0, Math.max(0, room));
      this.cut = true;
      this.flush();
      this.emit(`\n[more output was left out: past ${SCRIPT_OUTPUT_MAX} characters]\n`);
      return;
    }
    this.pending += text;
    this.flush();
  }

  flush(): void {
    while (this.pending.length > 0) {
      const piece = this.pending.slice(0, SCRIPT_CHUNK_CHARS);
      this.pending = this.pending.slice(piece.length);
      this.sent += piece.length;
      this.emit(piece);
    }
  }
}
