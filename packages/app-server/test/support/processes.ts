import { readFileSync } from "node:fs";

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
