import { randomBytes } from "node:crypto";
import { chmod, lstat, open, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Replaces the file at `path` with `data` so that a reader (or a crash) sees
 * either the old contents or the new ones, never a mix: the data goes to a
 * temporary file in the same directory, is flushed, then renamed over the
 * target. An existing file keeps its permission bits; a symlink is followed
 * so the link stays a link. The parent directory must exist.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const target = await followSymlink(path);
  const existingMode = await modeOf(target);
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temp, "wx", existingMode ?? 0o666);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // open() applied the umask; the old file's exact bits win.
    if (existingMode !== undefined) await chmod(temp, existingMode);
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

async function followSymlink(path: string): Promise<string> {
  try {
    if ((await lstat(path)).isSymbolicLink()) return await realpath(path);
  } catch (error) {
    // A dangling link or a missing file: write at the path itself.
    if (!isMissing(error)) throw error;
  }
  return path;
}

async function modeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR");
}
