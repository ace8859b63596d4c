import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { ToolError } from "./errors.js";

const MAX_LINE_BYTES = 8 * 1024 * 1024;
const MAX_STDERR_BYTES = 4096;

export interface LineProcessOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Receives each stdout line; returning false stops the process. */
  onLine: (line: string) => boolean;
}

export interface LineProcessResult {
  exitCode: number | null;
  /** The start of stderr. */
  stderr: string;
  /** onLine asked to stop, so the process was killed. */
  stopped: boolean;
}

/**
 * Runs a program with an argument array (never a shell), feeding its stdout
 * to `onLine` line by line. Lines longer than MAX_LINE_BYTES are skipped so
 * memory stays bounded.
 */
export function runLineProcess(options: LineProcessOptions): Promise<LineProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.file, options.args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    const decoder = new StringDecoder("utf8");
    let partial = "";
    let skipping = false;
    let stopped = false;
    let stderr = "";
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      child.kill("SIGTERM");
    };
    const onAbort = (): void => stop();
    const feed = (text: string): void => {
      let start = 0;
      for (let newline = text.indexOf("\n"); newline !== -1 && !stopped; newline = text.indexOf("\n", start)) {
        const line = partial + text.slice(start, newline);
        partial = "";
        start = newline + 1;
        if (skipping) skipping = false;
        else if (!options.onLine(line)) stop();
      }
      if (stopped) return;
      partial += text.slice(start);
      if (partial.length > MAX_LINE_BYTES) {
        partial = "";
        skipping = true;
      }
    };
    child.stdout.on("data", (chunk: Buffer) => {
      if (!stopped) feed(decoder.write(chunk));
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.toString("utf8");
    });
    child.once("error", (error) => {
      options.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.once("close", (code) => {
      options.signal?.removeEventListener("abort", onAbort);
      const rest = decoder.end();
      if (!stopped && partial + rest !== "") feed(`${rest}\n`);
      if (options.signal?.aborted) reject(new ToolError("aborted", "The tool call was aborted."));
      else resolve({ exitCode: code, stderr: stderr.slice(0, MAX_STDERR_BYTES).trim(), stopped });
    });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
