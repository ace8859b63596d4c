import { StringDecoder } from "node:string_decoder";
import type { ProcessGroups } from "@knightcode/system/process/groups";
import { collectOutput } from "@knightcode/system/process/collect";
import { launch } from "@knightcode/system/process/launch";
import type { SandboxLaunch } from "@knightcode/system/process/sandbox/command";
import type { ExecResult } from "./types.js";

const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface ExecOptions {
  cwd: string;
  timeout?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Owns the program's process group, its background children included; the process-wide owner by default. */
  processes?: ProcessGroups;
  /** The thread's sandbox, when its commands run in one. */
  sandbox?: SandboxLaunch;
}

/**
 * A stream's bytes as text, decoded once at the end: a character the pipe
 * split across two chunks stays whole, and one the cap cut in two is left
 * out rather than ending on U+FFFD.
 * @internal exported for its test
 */
export function decodeCapped(bytes: Buffer, truncated: boolean): string {
  const decoder = new StringDecoder("utf8");
  return truncated ? decoder.write(bytes) : decoder.end(bytes);
}

/**
 * Runs a program with an argument array (never a shell), in its own process
 * group so a timeout, an abort or the program's death by a signal stops
 * everything it started (at once: SIGKILL). A signal death answers
 * `code: null` and the signal's name. Output beyond 16 MiB per stream is
 * dropped.
 */
export async function execProgram(command: string, args: string[], options: ExecOptions): Promise<ExecResult> {
  const run = launch({
    file: command,
    args,
    cwd: options.cwd,
    env: options.env ?? process.env,
    ...(options.processes ? { processes: options.processes } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox, keepBackground: true } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeout ? { timeoutMs: options.timeout } : {}),
    killGraceMs: 0,
  });
  const end = await collectOutput(run, { maxStdout: MAX_OUTPUT_BYTES, maxStderr: MAX_OUTPUT_BYTES });
  return {
    stdout: decodeCapped(end.stdout, end.truncated.stdout),
    stderr: decodeCapped(end.stderr, end.truncated.stderr),
    code: end.code,
    signal: end.signal,
    timedOut: end.timedOut,
  };
}
