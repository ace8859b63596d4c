import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, fsyncSync, lstatSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { chmod, lstat, open, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export interface AtomicWriteOptions {
  /** File mode for a new file; an existing file keeps its own unless `keepExistingMode` is false. */
  mode?: number;
  keepExistingMode?: boolean;
  /** fsync the directory too, so the rename itself survives a power loss. The data is always fsynced. */
  durable?: boolean;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** A fresh temporary name beside `target`, so a rename or link stays on one filesystem. */
export function tempBeside(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
}

/** Makes a directory's entries (a rename, a new file) survive a power loss, where the filesystem allows it. */
export function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse to fsync a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A symlink is written through, so the link stays a link; a dangling one is written at its own path. */
function followSync(path: string): string {
  try {
    if (lstatSync(path).isSymbolicLink()) return realpathSync(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  return path;
}

function modeSync(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * Replaces a file's content all at once: readers see the old file or the new
 * one, never a mix, and a failure (disk full, a crash) leaves the old file
 * whole. The temporary file sits beside the target so the rename stays on
 * one filesystem; an existing file keeps its permission bits.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const target = followSync(path);
  const existing = options.keepExistingMode === false ? undefined : modeSync(target);
  const mode = existing ?? options.mode ?? 0o644;
  const temp = tempBeside(target);
  const fd = openSync(temp, "wx", mode);
  let closed = false;
  try {
    const buffer = typeof data === "string" ? Buffer.from(data) : data;
    let written = 0;
    while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written);
    fsyncSync(fd);
    closeSync(fd);
    closed = true;
    // open() applied the umask; the intended bits win.
    chmodSync(temp, mode);
    renameSync(temp, target);
  } catch (error) {
    if (!closed) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // Never created or already renamed.
    }
    throw error;
  }
  if (options.durable) fsyncDirectory(dirname(target));
}

/** The same as writeFileAtomic, without blocking the event loop: for large files such as a tool's writes. */
export async function writeFileAtomicAsync(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  let target = path;
  try {
    if ((await lstat(path)).isSymbolicLink()) target = await realpath(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  let existing: number | undefined;
  if (options.keepExistingMode !== false) {
    try {
      existing = (await stat(target)).mode & 0o7777;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  const mode = existing ?? options.mode ?? 0o644;
  const temp = tempBeside(target);
  try {
    const handle = await open(temp, "wx", mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, mode);
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  if (options.durable) fsyncDirectory(dirname(target));
}
