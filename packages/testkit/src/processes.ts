import { readdirSync, readFileSync } from "node:fs";

/**
 * Host pids whose command line (its words joined by spaces) is `command`,
 * or passes it when it is a test: how a process inside a sandbox's pid
 * namespace is found from outside. A zombie (dead, waiting for its
 * reaper) is left out.
 */
export function hostProcesses(command: string | ((commandLine: string) => boolean)): number[] {
  const matches = typeof command === "string" ? (line: string) => line === command : command;
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const line = readFileSync(`/proc/${name}/cmdline`, "utf8")
        .split("\0")
        .filter((word) => word !== "")
        .join(" ");
      if (matches(line) && !readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]!.startsWith("Z")) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
