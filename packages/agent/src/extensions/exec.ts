import { spawn } from "node:child_process";
import type { ExecResult } from "./types.js";

const MAX_OUTPUT = 16 * 1024 * 1024;

/**
 * Runs a program with an argument array (never a shell), in its own process
 * group so a timeout or abort stops everything it started. Output beyond
 * 16 MiB per stream is dropped.
 */
export function execProgram(
  command: string,
  args: string[],
  options: { cwd: string; timeout?: number; signal?: AbortSignal; env?: NodeJS.ProcessEnv },
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const collect = (which: "out" | "err") => (chunk: Buffer) => {
      if (which === "out" && stdout.length < MAX_OUTPUT) stdout += chunk.toString("utf8");
      if (which === "err" && stderr.length < MAX_OUTPUT) stderr += chunk.toString("utf8");
    };
    child.stdout.on("data", collect("out"));
    child.stderr.on("data", collect("err"));
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = options.timeout ? setTimeout(() => ((timedOut = true), killGroup()), options.timeout) : undefined;
    const onAbort = () => killGroup();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({ stdout, stderr, code, signal, timedOut });
    });
  });
}
