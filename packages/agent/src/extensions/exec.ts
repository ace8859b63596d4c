import { StringDecoder } from "node:string_decoder";
import type { ProcessGroups } from "../process/groups.js";
import { launch } from "../process/launch.js";
import type { SandboxLaunch } from "../process/sandbox/command.js";
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
 * One stream's bytes up to the cap, decoded once at the end: a character
 * the pipe split across two chunks stays whole.
 * @internal exported for its test
 */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private truncated = false;

  push(chunk: Buffer): void {
    const room = MAX_OUTPUT_BYTES - this.bytes;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.truncated = true;
    this.chunks.push(kept);
    this.bytes += kept.length;
  }

  text(): string {
    const decoder = new StringDecoder("utf8");
    const all = Buffer.concat(this.chunks, this.bytes);
    // At the cap a character may be cut in two: write() leaves its first bytes out rather than ending on U+FFFD.
    return this.truncated ? decoder.write(all) : decoder.end(all);
  }
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
  const stdout = new CappedOutput();
  const stderr = new CappedOutput();
  run.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  run.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  const end = await run.done;
  return { stdout: stdout.text(), stderr: stderr.text(), code: end.code, signal: end.signal, timedOut: end.timedOut };
}
