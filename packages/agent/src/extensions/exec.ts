import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { withGitGuards } from "../tools/git-guards.js";
import { unownedProcessGroups, type ProcessGroup, type ProcessGroups } from "../tools/process-groups.js";
import type { ExecResult } from "./types.js";

const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface ExecOptions {
  cwd: string;
  timeout?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Owns the program's process group, its background children included; the process-wide owner by default. */
  processes?: ProcessGroups;
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
 * everything it started. A signal death answers `code: null` and the
 * signal's name. Output beyond 16 MiB per stream is dropped.
 */
export function execProgram(command: string, args: string[], options: ExecOptions): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: withGitGuards(options.env ?? process.env), stdio: ["ignore", "pipe", "pipe"], detached: true });
    const group: ProcessGroup | undefined = child.pid === undefined ? undefined : (options.processes ?? unownedProcessGroups()).add(child.pid);
    const stdout = new CappedOutput();
    const stderr = new CappedOutput();
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    const killGroup = (): void => {
      group?.stop(0).catch(() => undefined);
    };
    const timer = options.timeout ? setTimeout(() => ((timedOut = true), killGroup()), options.timeout) : undefined;
    // A program killed from outside leaves its children orphaned and holding the pipes: the answer
    // would wait for them. It did not finish, so nothing it started goes on.
    child.once("exit", (_code, signal) => {
      if (signal !== null) killGroup();
    });
    const onAbort = (): void => killGroup();
    if (options.signal?.aborted) killGroup();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    const settle = (): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      group?.isAlive();
    };
    child.on("error", (error) => {
      settle();
      reject(error);
    });
    child.on("close", (code, signal) => {
      settle();
      resolve({ stdout: stdout.text(), stderr: stderr.text(), code, signal, timedOut });
    });
  });
}
