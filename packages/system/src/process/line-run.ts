import { StringDecoder } from "node:string_decoder";
import { launch } from "./launch.js";
import type { SandboxLaunch } from "./sandbox/command.js";

const MAX_LINE_BYTES = 8 * 1024 * 1024;
const MAX_STDERR_BYTES = 4096;
const KILL_GRACE_MS = 2000;

export interface LineProcessOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** The sandbox it runs in (rg and fd for the model's grep and find); none without it. */
  sandbox?: SandboxLaunch;
  /** Receives each stdout line; returning false stops the process. */
  onLine: (line: string) => boolean;
}

export interface LineProcessResult {
  exitCode: number | null;
  /** The start of stderr. */
  stderr: string;
  /** onLine asked to stop, so the process was killed. */
  stopped: boolean;
  /** The signal stopped it: what it printed is not the whole answer. */
  aborted: boolean;
}

/**
 * Runs a program with an argument array (never a shell), feeding its stdout
 * to `onLine` line by line. Lines longer than MAX_LINE_BYTES are skipped so
 * memory stays bounded.
 */
export async function runLineProcess(options: LineProcessOptions): Promise<LineProcessResult> {
  const run = launch({
    file: options.file,
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    killGraceMs: KILL_GRACE_MS,
  });
  const decoder = new StringDecoder("utf8");
  let partial = "";
  let skipping = false;
  let stopped = false;
  let stderr = "";
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    run.stop();
  };
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
  run.stdout.on("data", (chunk: Buffer) => {
    if (!stopped) feed(decoder.write(chunk));
  });
  run.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.toString("utf8");
  });
  const end = await run.done;
  const rest = decoder.end();
  if (!stopped && partial + rest !== "") feed(`${rest}\n`);
  return { exitCode: end.code, stderr: stderr.slice(0, MAX_STDERR_BYTES).trim(), stopped, aborted: options.signal?.aborted === true };
}
