import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from "node:fs";
import { dirname } from "node:path";

/**
 * Checks on the files that tell a client where its server is (a ready file,
 * a Unix socket) and on the folders that hold them. Another local user who
 * can write such a file, or swap the folder it is in, can point a client at
 * a listener of theirs. Windows has no owner or mode bits to read here
 * (NTFS uses ACLs), so there every check passes.
 */
export interface OwnerOptions {
  /** The user the files must belong to; this process's by default. */
  uid?: number;
  platform?: NodeJS.Platform;
}

const STICKY = 0o1000;

function ownUid(options: OwnerOptions): number | undefined {
  if ((options.platform ?? process.platform) === "win32") return undefined;
  return options.uid ?? process.getuid?.();
}

function modeText(stats: Stats): string {
  return (stats.mode & 0o7777).toString(8).padStart(4, "0");
}

/**
 * Why another user could replace an entry of `dir`, or `dir` itself; undefined
 * when nobody but us (and root) can. Every folder from `dir` up to `/` must
 * belong to us or to root, and one that others may write must be sticky
 * (like `/tmp`), where nobody removes or renames another user's entry.
 */
export function sharedFolderProblem(dir: string, options: OwnerOptions = {}): string | undefined {
  const uid = ownUid(options);
  if (uid === undefined) return undefined;
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? `${dir} does not exist` : (error as Error).message;
  }
  for (let folder = real; ; folder = dirname(folder)) {
    const stats = lstatSync(folder);
    if (!stats.isDirectory()) return `${folder} is not a directory`;
    if (stats.uid !== uid && stats.uid !== 0) return `${folder} belongs to user ${stats.uid}, who could replace what is in it`;
    if ((stats.mode & 0o022) !== 0 && (stats.mode & STICKY) === 0) {
      return `${folder} is writable by other users and not sticky (mode ${modeText(stats)}), so they could replace what is in it`;
    }
    if (folder === dirname(folder)) return undefined;
  }
}

/**
 * Why `dir` is not a folder of our own that only we can change; undefined
 * when it is: a real directory (not a symlink), owned by us, that neither
 * group nor others may write, inside folders that pass `sharedFolderProblem`.
 */
export function privateFolderProblem(dir: string, options: OwnerOptions = {}): string | undefined {
  const uid = ownUid(options);
  if (uid === undefined) return undefined;
  let stats: Stats;
  try {
    stats = lstatSync(dir);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? `${dir} does not exist` : (error as Error).message;
  }
  if (stats.isSymbolicLink()) return `${dir} is a symbolic link, not a folder of your own`;
  if (!stats.isDirectory()) return `${dir} is not a directory`;
  if (stats.uid !== uid) return `${dir} belongs to user ${stats.uid}, not to you (${uid})`;
  if ((stats.mode & 0o022) !== 0) return `${dir} is writable by other users (mode ${modeText(stats)}); run: chmod 700 ${dir}`;
  return sharedFolderProblem(dirname(dir), options);
}

/** What an owned file said, or why it was not read: `missing` while it is not there yet. */
export type OwnedRead = { ok: true; text: string } | { ok: false; missing: boolean; problem: string };

/**
 * Reads a regular file that belongs to us and that neither group nor others
 * may write. The checks look at the opened file, so a swap between check and
 * read changes nothing; a symlink at `path` is refused, not followed.
 */
export function readOwnedFile(path: string, maxBytes: number, options: OwnerOptions = {}): OwnedRead {
  const uid = ownUid(options);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, missing: true, problem: `${path} does not exist` };
    if (code === "ELOOP") return { ok: false, missing: false, problem: `${path} is a symbolic link` };
    return { ok: false, missing: false, problem: `cannot read ${path}: ${(error as Error).message}` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, missing: false, problem: `${path} is not a regular file` };
    if (uid !== undefined && stats.uid !== uid) return { ok: false, missing: false, problem: `${path} belongs to user ${stats.uid}, not to you (${uid})` };
    if (uid !== undefined && (stats.mode & 0o022) !== 0) {
      return { ok: false, missing: false, problem: `${path} is writable by other users (mode ${modeText(stats)})` };
    }
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > maxBytes) return { ok: false, missing: false, problem: `${path} is larger than ${maxBytes} bytes` };
    return { ok: true, text: buffer.toString("utf8", 0, length) };
  } finally {
    closeSync(fd);
  }
}

/** Whether `host` (brackets allowed) names this machine's loopback interface. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}
