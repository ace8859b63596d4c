import { closeSync, constants, copyFileSync, fsyncSync, linkSync, mkdirSync, openSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { fsyncDirectory, tempBeside } from "@knightcode/system/fs/atomic-write";
import { errnoCode, SessionFileError } from "./errors.js";

/** Transcripts hold conversations and tool output: readable by their owner only. */
export const TRANSCRIPT_MODE = 0o600;

/** mkdir -p, then fsync the parent of every directory it made, so the chain down to a new file is durable. */
export function ensureDirectory(dir: string): void {
  let first: string | undefined;
  try {
    first = mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new SessionFileError("writeFailed", `could not create ${dir}: ${(error as Error).message}`, { path: dir, cause: error });
  }
  if (first === undefined) return;
  for (let made = dir; ; made = dirname(made)) {
    fsyncDirectory(dirname(made));
    if (made === first || dirname(made) === made) break;
  }
}

export function writeFully(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
}

const LINK_UNSUPPORTED = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK", "EXDEV"]);

function placeWithoutOverwrite(temp: string, path: string): void {
  try {
    linkSync(temp, path);
    return;
  } catch (error) {
    if (!LINK_UNSUPPORTED.has(errnoCode(error) ?? "")) throw error;
  }
  // Without hard links the copy is not atomic, but it still never overwrites.
  copyFileSync(temp, path, constants.COPYFILE_EXCL);
  const fd = openSync(path, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

interface Temp {
  path: string;
  fd: number;
  closed: boolean;
}

function openTemp(path: string): Temp {
  const temp = tempBeside(path);
  try {
    return { path: temp, fd: openSync(temp, "wx", TRANSCRIPT_MODE), closed: false };
  } catch (error) {
    throw new SessionFileError("writeFailed", `could not create a file beside ${path}: ${(error as Error).message}`, { path, cause: error });
  }
}

function place(temp: Temp, path: string): void {
  fsyncSync(temp.fd);
  closeSync(temp.fd);
  temp.closed = true;
  placeWithoutOverwrite(temp.path, path);
}

function discard(temp: Temp, path: string, error: unknown): SessionFileError | unknown {
  if (!temp.closed) closeSync(temp.fd);
  if (errnoCode(error) === "EEXIST") return new SessionFileError("alreadyExists", `${path} already exists`, { path, cause: error });
  if (errnoCode(error) === undefined) return error;
  return new SessionFileError("writeFailed", `could not write ${path}: ${(error as Error).message}`, { path, cause: error });
}

function removeTemp(temp: Temp): void {
  try {
    unlinkSync(temp.path);
  } catch {
    // Already gone.
  }
}

/**
 * Creates `path` whole or not at all, never replacing an existing file: the
 * content goes to a temporary sibling, is fsynced, then linked into place.
 * A crash leaves at most a stray temporary file, never a header-less transcript.
 */
export async function publishExclusive(path: string, fill: (write: (bytes: Uint8Array) => void) => Promise<void>): Promise<void> {
  const temp = openTemp(path);
  try {
    await fill((bytes) => writeFully(temp.fd, bytes));
    place(temp, path);
  } catch (error) {
    throw discard(temp, path, error);
  } finally {
    removeTemp(temp);
  }
  fsyncDirectory(dirname(path));
}

/** The same for content at hand. */
export function publishBytesExclusive(path: string, bytes: Uint8Array): void {
  const temp = openTemp(path);
  try {
    writeFully(temp.fd, bytes);
    place(temp, path);
  } catch (error) {
    throw discard(temp, path, error);
  } finally {
    removeTemp(temp);
  }
  fsyncDirectory(dirname(path));
}
