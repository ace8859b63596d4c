import { statfsSync } from "node:fs";
import { basename } from "node:path";
import { realPathOf } from "@knightcode/system/fs/real-target";

/**
 * The files of the proc file system that hold what a process keeps secret:
 * its environment (provider keys, the server's WebSocket token), its command
 * line (a `--listen-token`), its memory, and the kernel's memory. The server
 * can read its own and those of every process of its user, and `/proc/self`
 * is the server itself when a tool reads in-process.
 */
const SECRET_NAMES = new Set(["environ", "cmdline", "mem", "kcore"]);

/** The proc file system's magic number in statfs(2). */
const PROC_SUPER_MAGIC = 0x9fa0;

/**
 * A cheap first look for a walk, which never follows links: a path it
 * yields can only be one of these files when its own name is.
 */
export function mayBeProcessSecret(path: string): boolean {
  return SECRET_NAMES.has(basename(path));
}

/**
 * Whether `path`, links followed (`/proc/self`, `/proc/thread-self`, a link
 * in the project, `/proc/<pid>/task/<tid>`), is one of those files: named so
 * and under `/proc`, or on a proc file system mounted anywhere else.
 */
export function isProcessSecretFile(path: string): boolean {
  const real = realPathOf(path);
  if (!SECRET_NAMES.has(basename(real))) return false;
  if (real.startsWith("/proc/")) return true;
  try {
    return statfsSync(real).type === PROC_SUPER_MAGIC;
  } catch {
    return false;
  }
}
