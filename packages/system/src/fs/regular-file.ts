import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";

/**
 * A path that names something other than a regular file where only a file
 * will do: a FIFO, a socket or a device. Reading one could wait forever (a
 * FIFO without a writer) or never end (a device).
 */
export class NotRegularFileError extends Error {
  override readonly name = "NotRegularFileError";
  readonly code = "ENOTREGULAR";

  constructor(
    readonly path: string,
    /** What it is instead, as words: "a FIFO", "a character device". */
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file`);
  }
}

/**
 * Read-only, and never waiting in open(2): a FIFO opened for reading without
 * O_NONBLOCK blocks until a writer comes, and in Node that holds one of the
 * four threads every file operation of the process shares. O_NOCTTY so a
 * terminal never becomes ours. O_NONBLOCK changes nothing for regular files.
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "not a file";
}

function directoryError(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EISDIR: illegal operation on a directory, open '${path}'`), { code: "EISDIR", path });
}

/** Throws unless `stats` is a regular file's: EISDIR for a folder, as open(2)+read would, else NotRegularFileError. */
export function requireRegularFile(path: string, stats: Stats): void {
  if (stats.isFile()) return;
  if (stats.isDirectory()) throw directoryError(path);
  throw new NotRegularFileError(path, kindOf(stats));
}

/**
 * Opens a file for reading only when it is a regular file (links followed).
 * The path is looked at first, so a FIFO or a device is never opened; what
 * was opened is looked at again, so one swapped in between is refused too.
 * Errors are Node's own (ENOENT, EACCES, EISDIR) or NotRegularFileError.
 */
export async function openRegularFile(path: string): Promise<{ handle: FileHandle; stats: Stats }> {
  requireRegularFile(path, await stat(path));
  const handle = await open(path, READ_FLAGS);
  try {
    const stats = await handle.stat();
    requireRegularFile(path, stats);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * A regular file's bytes, at most `maxBytes + 1` of them whatever its size
 * says (it may grow while read): a result longer than `maxBytes` means the
 * file is larger than that.
 */
export async function readRegularFile(path: string, maxBytes = Number.MAX_SAFE_INTEGER): Promise<Buffer> {
  const { handle, stats } = await openRegularFile(path);
  try {
    return await readAtMost(handle, maxBytes + 1, stats.size);
  } finally {
    await handle.close();
  }
}

/** Up to `limit` bytes from the current position; `expected` (the size fstat gave) sizes the first read. */
async function readAtMost(handle: FileHandle, limit: number, expected: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  let size = firstReadSize(limit, expected);
  while (total < limit) {
    const buffer = Buffer.allocUnsafe(Math.min(size, limit - total));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    size = Math.min(size * 2, 8 * 1024 * 1024);
  }
  return Buffer.concat(chunks, total);
}

/** openRegularFile for code that must stay synchronous; answers a file descriptor the caller closes. */
export function openRegularFileSync(path: string): { fd: number; stats: Stats } {
  requireRegularFile(path, statSync(path));
  const fd = openSync(path, READ_FLAGS);
  try {
    const stats = fstatSync(fd);
    requireRegularFile(path, stats);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** readRegularFile for code that must stay synchronous. */
export function readRegularFileSync(path: string, maxBytes = Number.MAX_SAFE_INTEGER): Buffer {
  const { fd, stats } = openRegularFileSync(path);
  try {
    const limit = maxBytes + 1;
    const chunks: Buffer[] = [];
    let total = 0;
    let size = firstReadSize(limit, stats.size);
    while (total < limit) {
      const buffer = Buffer.allocUnsafe(Math.min(size, limit - total));
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      size = Math.min(size * 2, 8 * 1024 * 1024);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** One read for a file as large as fstat said (plus a byte to see the end), within reason. */
function firstReadSize(limit: number, expected: number): number {
  return Math.max(1, Math.min(limit, expected + 1, 1024 * 1024));
}
