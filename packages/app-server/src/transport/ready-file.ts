import { randomBytes } from "node:crypto";
import { accessSync, closeSync, constants, fchmodSync, lstatSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { sharedFolderProblem } from "@knightcode/app-server-client";

/**
 * Why the ready file cannot be written at `path`, checked before the server
 * starts; undefined when it can. Its folder, and every folder above, must be
 * one where nobody else can replace our file: ours or root's, and sticky if
 * others may write it (like `/tmp`). A file an earlier run left is removed,
 * so it is never read as this run's address while the server starts.
 */
export function readyFileProblem(path: string): string | undefined {
  const dir = dirname(resolve(path));
  const folderProblem = sharedFolderProblem(dir);
  if (folderProblem !== undefined) return `cannot write the ready file ${path}: ${folderProblem}`;
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return `cannot write the ready file ${path}: ${dir} is not writable`;
  }
  const existing = lstatSync(path, { throwIfNoEntry: false });
  if (existing?.isDirectory()) return `cannot write the ready file ${path}: it is a directory`;
  try {
    // A symlink at `path` is removed itself, never followed.
    rmSync(path, { force: true });
  } catch (error) {
    return `cannot write the ready file ${path}: ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * Tells a waiting client where the listener is: `{url, pid}` written to a
 * new file of random name beside `path` (created exclusively, so nothing
 * planted there, a symlink least of all, is ever written through) and
 * renamed over `path`, so a reader sees all of it or none.
 */
export function writeReadyFile(path: string, url: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(12).toString("hex")}.tmp`);
  let fd: number | undefined;
  let created = false;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    created = true;
    // The umask may have taken bits away; none may be added.
    fchmodSync(fd, 0o600);
    writeSync(fd, JSON.stringify({ url, pid: process.pid }) + "\n");
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    if (created) rmSync(temp, { force: true });
    throw new Error(`cannot write the ready file ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
