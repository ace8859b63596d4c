import { existsSync, readFileSync } from "node:fs";

export { hostProcesses } from "@knightcode/testkit";

/**
 * The pids a shell stand-in appended to `file`, one per line. The shell
 * creates the file before it writes, so an empty read means none yet:
 * never a pid 0 that would look like a dead process.
 */
export function pidsIn(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

/**
 * Whether a process still runs. A killed orphan stays a zombie until
 * whoever adopted it reaps it: dead all the same. Without /proc (not
 * Linux) the signal check alone decides.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");
  } catch {
    return process.platform !== "linux";
  }
}
