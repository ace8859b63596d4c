import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Who a process is, precisely enough to tell a live lock holder from a dead
 * one whose pid was reused: on Linux the kernel's boot id and the process's
 * start time (in clock ticks since boot) come with the pid.
 */
export interface ProcessIdentity {
  pid: number;
  host: string;
  bootId?: string;
  startTicks?: number;
}

function readBootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat; the command name (field 2) may contain spaces and parentheses. */
export function readStartTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

let self: ProcessIdentity | undefined;

export function currentProcess(): ProcessIdentity {
  self ??= { pid: process.pid, host: hostname(), bootId: readBootId(), startTicks: readStartTicks(process.pid) };
  return self;
}

/**
 * Whether the process described is certainly gone. A holder on another host,
 * or one we cannot inspect, counts as alive: a lock is never broken on a guess.
 */
export function isCertainlyDead(holder: ProcessIdentity): boolean {
  const me = currentProcess();
  if (holder.host !== me.host) return false;
  if (holder.bootId !== undefined && me.bootId !== undefined && holder.bootId !== me.bootId) return true;
  if (holder.pid === me.pid) return holder.startTicks !== undefined && me.startTicks !== undefined && holder.startTicks !== me.startTicks;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  if (holder.startTicks === undefined) return false;
  const ticks = readStartTicks(holder.pid);
  return ticks !== undefined && ticks !== holder.startTicks;
}
