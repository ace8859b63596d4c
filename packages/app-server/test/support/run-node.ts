import { spawn } from "node:child_process";

/** What a script run to its end printed, and how it exited. */
export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `file` with this Node, its stdin closed, and collects what it prints. */
export function runNode(file: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
