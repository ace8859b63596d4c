import { lstat, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removePrivateTmp, SANDBOX_TMP_PREFIX } from "@knightcode/system/process/sandbox/private-tmp";
import { SPOOL_FOLDER_PREFIX } from "./store.js";

/** The folders a server sweeps by default: the payload spools and the threads' private temporary folders of the sandbox. */
const SPOOL_PREFIXES = [SPOOL_FOLDER_PREFIX, SANDBOX_TMP_PREFIX];

/** What mkdtemp makes of `<prefix><pid>-XXXXXX`, for one of `prefixes`; the pid is the match's first group. */
function folderPattern(prefixes: readonly string[]): RegExp {
  const names = prefixes.map((prefix) => prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  return new RegExp(`^(?:${names})([1-9][0-9]{0,9})-[A-Za-z0-9]{6}$`);
}
const MAX_PID = 2 ** 31 - 1;
/** Long enough after start that the sweep never competes with the handshake. */
const SWEEP_DELAY_MS = 1000;

export interface StaleSpoolSweepOptions {
  /** The folder spools are made in; the system temp folder by default, as for the store. */
  root?: string;
  /** Whose folders, by the prefix of their names: the spools' and the sandbox's by default. */
  prefixes?: readonly string[];
  /** Whether a process exists; by default `kill(pid, 0)`, where only ESRCH means it does not. */
  processExists?: (pid: number) => boolean;
  onError?: (message: string, error: unknown) => void;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Removes the spool and sandbox temporary folders (or those `prefixes`
 * name) of servers that died without removing their own (a `kill -9`
 * leaves up to 1 GiB of spool behind): named like one of them, of a pid no
 * process has, a real folder rather than a link, and ours. Another user's
 * folders and a live server's are never touched. Answers the paths removed.
 */
export async function sweepStaleSpools(options: StaleSpoolSweepOptions = {}): Promise<string[]> {
  const uid = process.getuid?.();
  if (uid === undefined) return [];
  const root = options.root ?? tmpdir();
  const exists = options.processExists ?? processExists;
  const pattern = folderPattern(options.prefixes ?? SPOOL_PREFIXES);
  const removed: string[] = [];
  for (const name of await readdir(root)) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!(pid > 0 && pid <= MAX_PID) || pid === process.pid || exists(pid)) continue;
    const path = join(root, name);
    try {
      const info = await lstat(path);
      if (!info.isDirectory() || info.uid !== uid) continue;
      await removePrivateTmp(path);
      removed.push(path);
    } catch (error) {
      // Gone already: another server swept it first.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") options.onError?.(`removing the stale folder ${path} failed`, error);
    }
  }
  return removed;
}

let scheduled = false;

/** Sweeps once per process, a moment after start, in the background. */
export function scheduleStaleSpoolSweep(options: StaleSpoolSweepOptions & { onRemoved?: (paths: string[]) => void } = {}): void {
  if (scheduled) return;
  scheduled = true;
  const timer = setTimeout(() => {
    sweepStaleSpools(options).then(
      (paths) => (paths.length > 0 ? options.onRemoved?.(paths) : undefined),
      (error: unknown) => options.onError?.("sweeping stale payload spools failed", error),
    );
  }, SWEEP_DELAY_MS);
  timer.unref();
}
