import { existsSync, readdirSync, readFileSync } from "node:fs";

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

/** Host pids whose command line is exactly `command`: how a process inside a sandbox's pid namespace is found from outside. */
export function hostProcesses(command: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return (
          readFileSync(`/proc/${name}/cmdline`, "utf8")
            .split("\0")
            .filter((word) => word !== "")
            .join(" ") === command
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}
