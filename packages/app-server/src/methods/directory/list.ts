import type { Dirent } from "node:fs";
import { opendir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { rpcError } from "../../rpc/errors.js";
import type { Handler } from "../../rpc/handler.js";

const DEFAULT_LIMIT = 200;

interface Folder {
  name: string;
  path: string;
}

/** The folder `given` names: `~` is the server's home, anything else must be absolute. */
function folderOf(given: string): string {
  if (given.includes("\0")) throw rpcError("invalidParams", "the path holds a NUL character");
  const expanded = given === "~" ? homedir() : given.startsWith("~/") ? join(homedir(), given.slice(2)) : given;
  if (!isAbsolute(expanded)) throw rpcError("invalidParams", `the path must be absolute (or start with ~/): ${given}`);
  return resolve(expanded);
}

/** Why `folder` cannot be listed, as the wire's error; the rest as they are. */
function listError(error: unknown, folder: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return rpcError("invalidParams", `no such folder: ${folder}`);
  if (code === "ENOTDIR") return rpcError("invalidParams", `not a folder: ${folder}`);
  if (code === "EACCES" || code === "EPERM") return rpcError("invalidParams", `the server may not read the folder ${folder}`);
  if (code === "ELOOP") return rpcError("invalidParams", `too many symbolic links in ${folder}`);
  return error;
}

/** Whether an entry is a folder, following a symbolic link (one that leads nowhere is none). */
async function isFolder(entry: Dirent, path: string): Promise<boolean> {
  if (entry.isDirectory()) return true;
  // A link, or a file system that does not say the entry's kind: ask for what it leads to.
  const known = entry.isFile() || entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice();
  if (known) return false;
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Reads `folder` entry by entry (opendir reads in small batches, so a
 * folder of many thousands never holds the event loop for long), and
 * stops once it has one subfolder more than `limit`: enough to say the
 * answer is cut.
 */
async function subfolders(folder: string, limit: number, signal: AbortSignal): Promise<{ found: Folder[]; truncated: boolean }> {
  const found: Folder[] = [];
  const dir = await opendir(folder);
  for await (const entry of dir) {
    signal.throwIfAborted();
    if (entry.name.startsWith(".")) continue;
    const path = join(folder, entry.name);
    if (!(await isFolder(entry, path))) continue;
    if (found.length === limit) return { found, truncated: true };
    found.push({ name: entry.name, path });
  }
  return { found, truncated: false };
}

/** directory/list (beyond the spec): the subfolders of a folder, names only, for completing a project path. */
export const handler: Handler<"directory/list"> = async (params, ctx) => {
  const folder = folderOf(params.path);
  try {
    if (!(await stat(folder)).isDirectory()) throw rpcError("invalidParams", `not a folder: ${folder}`);
    const { found, truncated } = await subfolders(folder, params.limit ?? DEFAULT_LIMIT, ctx.signal);
    found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { path: folder, directories: found, truncated };
  } catch (error) {
    if (ctx.signal.aborted && error === ctx.signal.reason) throw rpcError("internal", "the listing was cancelled");
    throw listError(error, folder);
  }
};
