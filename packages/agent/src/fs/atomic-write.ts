import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export interface AtomicWriteOptions {
  /** File mode for a new file; an existing file keeps its own unless `keepExistingMode` is false. */
  mode?: number;
  keepExistingMode?: boolean;
  /** fsync the data and the directory, so the new content survives a power loss. */
  durable?: boolean;
}

function fsyncDirectory(dir: string): void {
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

/**
 * Replaces a file's content all at once: readers see the old file or the new
 * one, never a mix, and a failure (disk full, a crash) leaves the old file
 * whole. The temporary file sits beside the target so the rename stays on
 * one filesystem.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  let mode = options.mode ?? 0o644;
  if (options.keepExistingMode !== false) {
    try {
      mode = statSync(path).mode & 0o7777;
    } catch {
      // A new file.
    }
  }
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(temp, "wx", mode);
  try {
    const buffer = typeof data === "string" ? Buffer.from(data) : data;
    let written = 0;
    while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written);
    if (options.durable) fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, path);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
    try {
      unlinkSync(temp);
    } catch {
      // Never created or already renamed.
    }
    throw error;
  }
  if (options.durable) fsyncDirectory(dirname(path));
}
