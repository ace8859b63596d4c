import { existsSync, linkSync, lstatSync, mkdirSync, realpathSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { FileLock } from "@knightcode/system/fs/file-lock";
import { SessionFileError } from "./errors.js";
import { readSessionHeader } from "./read.js";
import { takeLock } from "./session-open.js";

/** Archived transcripts live in this folder beside the active ones. */
export const ARCHIVED_FOLDER = "archived";

/** Where a transcript goes when archived, or comes back to when unarchived. */
export function archivedPathOf(path: string): string {
  return join(dirname(path), ARCHIVED_FOLDER, basename(path));
}

export function activePathOf(archivedPath: string): string {
  return join(dirname(dirname(archivedPath)), basename(archivedPath));
}

export function isArchivedPath(path: string): boolean {
  return basename(dirname(path)) === ARCHIVED_FOLDER;
}

/** Both paths, when a move or deletion stops half way: what survives, for a client to show or repair. */
export interface ArchiveRecovery {
  reason: "destinationExists" | "hardLinked" | "moveInterrupted";
  /** Every name the transcript (or a transcript in the way) has now. */
  paths: string[];
}

export class ArchiveConflictError extends Error {
  constructor(
    message: string,
    readonly recovery: ArchiveRecovery,
  ) {
    super(message);
    this.name = "ArchiveConflictError";
  }
}

/** The session lock of `path`, which may not exist yet (a move's destination): the lock an owner of that path takes. */
function lockFor(path: string): FileLock {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    real = join(realpathSync(dirname(path)), basename(path));
  }
  return takeLock(path, real);
}

function destinationExists(from: string, to: string): ArchiveConflictError {
  return new ArchiveConflictError(`${to} already exists; nothing was moved`, { reason: "destinationExists", paths: [from, to] });
}

function refuseHardLinked(path: string, links: number): void {
  if (links > 1) throw new ArchiveConflictError(`${path} has ${links} hard links; refusing to move or delete it`, { reason: "hardLinked", paths: [path] });
}

/**
 * What can refuse a move without touching anything - a file in the way, a
 * transcript with other names - checked ahead, so a caller can refuse
 * before it unloads the thread. The move checks again under its locks.
 */
export function checkMovable(from: string, to: string): void {
  if (existsSync(to)) throw destinationExists(from, to);
  refuseHardLinked(from, lstatSync(from).nlink);
}

/** The transcript at `path`, checked to be the thread's, a regular file with one name. */
async function verify(path: string, threadId: string): Promise<void> {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    throw new SessionFileError("notFound", `no transcript at ${path}`, { path });
  }
  if (!stats.isFile()) throw new SessionFileError("notASessionFile", `${path} is not a regular file`, { path });
  refuseHardLinked(path, stats.nlink);
  const header = await readSessionHeader(path);
  if (header.id !== threadId) throw new SessionFileError("notASessionFile", `${path} belongs to thread ${header.id}, not ${threadId}`, { path });
}

/**
 * Moves a transcript between the active and the archived folder, owning
 * both paths meanwhile (their locks) and never replacing a file: the new
 * name is a hard link made first (which fails when the name is taken), then
 * the old name goes. Interrupted between the two, both names survive, and
 * the next attempt reports them as an archive conflict.
 */
export async function moveTranscript(from: string, to: string, threadId: string): Promise<void> {
  const sourceLock = lockFor(from);
  try {
    await verify(from, threadId);
    mkdirSync(dirname(to), { recursive: true });
    const targetLock = lockFor(to);
    try {
      try {
        linkSync(from, to);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") throw destinationExists(from, to);
        throw error;
      }
      try {
        unlinkSync(from);
      } catch (error) {
        throw new ArchiveConflictError(`the transcript now has two names and the old one could not be removed: ${(error as Error).message}`, {
          reason: "moveInterrupted",
          paths: [from, to],
        });
      }
    } finally {
      targetLock.release();
    }
  } finally {
    sourceLock.release();
  }
}

/** Removes a transcript for good, after taking its lock and checking it is the thread's own single-named file. */
export async function deleteTranscript(path: string, threadId: string): Promise<void> {
  const lock = lockFor(path);
  try {
    await verify(path, threadId);
    unlinkSync(path);
  } finally {
    lock.release();
  }
}
