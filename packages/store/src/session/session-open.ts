/**
 * Taking a transcript from disk: its lock, its file handle, and the index
 * and branch its owner keeps, read with the checks that make it ours (one
 * name, no other writer meanwhile). `SessionFile` is built on what these
 * return.
 */
import { randomUUID } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync, type Stats } from "node:fs";
import { basename, join, resolve } from "node:path";
import { FileLock, LockHeldError } from "@knightcode/system/fs/file-lock";
import { LineAppender } from "./appender.js";
import type { SyncFile } from "./flusher.js";
import { errnoCode, SessionFileError } from "./errors.js";
import { SESSION_FORMAT_VERSION, serializeHeader, toHeader, type SessionEntry, type SessionHeader } from "./format.js";
import { assertThreadId, sessionFileName } from "./paths.js";
import { ensureDirectory, publishBytesExclusive } from "./publish.js";
import { branchPath, readEntries } from "./read.js";
import { readBranchTail } from "./read-page.js";
import { notASessionFile, scanSession, type EntryRef, type SessionIssue } from "./scan.js";
import { emptySummary, summaryOf, type BranchSummary } from "./summary.js";

export interface SessionFileOptions {
  /** Clock for header and entry times (Unix ms). */
  now?: () => number;
  /**
   * Open from the newest checkpoint instead of reading the whole branch:
   * the summary, the leaf and appends work at once; `branch()` and the
   * index wait for `loadBranch()`. A file whose tail needs repair opens in
   * full.
   */
  lazy?: boolean;
  /** How often a non-durable append re-reads the lock; durable appends always do. */
  ownershipCheckMs?: number;
  /**
   * Told the file's path once the file is created and after each append:
   * how a listing's index keeps up with what its owner writes. Called
   * synchronously on the append's path, so it must only take note.
   */
  onWritten?: (path: string) => void;
  /** How a sync off the event loop reaches the disk (appendThenSync, flush); fdatasync unless a test holds or fails it. */
  syncFile?: SyncFile;
}

export interface CreateSessionOptions extends SessionFileOptions {
  dir: string;
  cwd: string;
  /** The thread id (a UUID); a new one by default. */
  id?: string;
  forkedFromId?: string;
  /** A sub-agent's: the thread whose model started it. */
  parentThreadId?: string;
  /** A sub-agent's: the parent's tool call that started it; only with parentThreadId. */
  parentCallId?: string;
}

/** What an owned transcript is made of; `SessionFile` keeps it up to date. */
export interface Parts {
  path: string;
  realPath: string;
  header: SessionHeader;
  lock: FileLock;
  fd: number;
  identity: Stats;
  appender: LineAppender;
  refs: EntryRef[];
  byId: Map<string, EntryRef>;
  leafId: string | null;
  branchRefs: EntryRef[];
  branchEntries: Array<SessionEntry | undefined>;
  issues: SessionIssue[];
  lineCount: number;
  /** What the current branch leaves behind; kept up to date by appends. */
  summary: BranchSummary;
  /** The newest entry's time. */
  lastTimestamp: number | undefined;
  /** False while a lazily opened file has not read its index and branch. */
  loaded: boolean;
}

/** Owns the transcript at `path` (real path `realPath`) across processes, or says who does. */
export function takeLock(path: string, realPath: string): FileLock {
  try {
    return FileLock.acquire(`${realPath}.lock`, "session");
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    const who = error.holder ? `process ${error.holder.pid} on ${error.holder.host}` : "another process";
    throw new SessionFileError("lockedElsewhere", `${path} is owned by ${who}`, { path, holder: error.holder, cause: error });
  }
}

/** Whether the file's last byte is a line feed: a tail that needs no repair. */
function endsWithNewline(fd: number, size: number): boolean {
  if (size === 0) return false;
  const byte = Buffer.alloc(1);
  return readSync(fd, byte, 0, 1, size - 1) === 1 && byte[0] === 0x0a;
}

/** Another writer must not have touched the file while it was read for opening. */
function checkUnchanged(path: string, realPath: string, fd: number, identity: Stats, size: number): void {
  const now = statSync(realPath);
  if (fstatSync(fd).size !== size || now.ino !== identity.ino || now.dev !== identity.dev) {
    throw new SessionFileError("ownershipLost", `${path} changed on disk while it loaded`, { path });
  }
}

function refuseHardLinks(path: string, stats: Stats): void {
  if (stats.nlink > 1) {
    throw new SessionFileError("hardLinked", `${path} has ${stats.nlink} hard links; a transcript must have one name to be owned safely`, { path });
  }
}

function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") throw new SessionFileError("notFound", `${path} does not exist`, { path, cause: error });
    throw error;
  }
}

function openForAppend(realPath: string): number {
  return openSync(realPath, constants.O_RDWR | constants.O_APPEND);
}

/** A new transcript holding only its header, written durably and owned. */
export function createParts(options: CreateSessionOptions): Parts {
  const id = options.id ?? randomUUID();
  assertThreadId(id);
  const now = options.now ?? Date.now;
  const header: SessionHeader = { type: "session", version: SESSION_FORMAT_VERSION, id, cwd: resolve(options.cwd), createdAt: new Date(now()).toISOString() };
  if (options.forkedFromId !== undefined) header.forkedFromId = options.forkedFromId;
  if (options.parentThreadId !== undefined) header.parentThreadId = options.parentThreadId;
  if (options.parentCallId !== undefined) header.parentCallId = options.parentCallId;
  // A header its own reader would refuse must never reach the disk.
  if (toHeader(header) === undefined) throw new TypeError("parentThreadId and parentCallId must be 1 to 256 characters, parentCallId only with parentThreadId");
  const dir = resolve(options.dir);
  ensureDirectory(dir);
  const path = join(dir, sessionFileName(header.createdAt, id));
  const realPath = join(realpathSync(dir), basename(path));
  const lock = takeLock(path, realPath);
  let fd: number | undefined;
  try {
    publishBytesExclusive(realPath, Buffer.from(`${serializeHeader(header)}\n`));
    fd = openForAppend(realPath);
    const identity = fstatSync(fd);
    const appender = new LineAppender(fd, realPath, identity.size, undefined, false);
    const parts: Parts = {
      ...{ path, realPath, header, lock, fd, identity, appender, refs: [], byId: new Map(), leafId: null, branchRefs: [], branchEntries: [], issues: [] },
      ...{ lineCount: 1, summary: emptySummary(), lastTimestamp: undefined, loaded: true },
    };
    return parts;
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    lock.release();
    throw error;
  }
}

/** An existing transcript, owned, with its index and branch read (or only its tail, when lazy). */
export async function openParts(path: string, options: SessionFileOptions): Promise<Parts> {
  const absolute = resolve(path);
  const realPath = realPathOf(absolute);
  const stats = statSync(realPath);
  if (!stats.isFile()) throw notASessionFile(absolute, "not a regular file");
  refuseHardLinks(absolute, stats);
  const lock = takeLock(absolute, realPath);
  let fd: number | undefined;
  try {
    fd = openForAppend(realPath);
    const identity = fstatSync(fd);
    refuseHardLinks(absolute, identity);
    if (options.lazy && endsWithNewline(fd, identity.size)) {
      const tail = await readBranchTail(realPath);
      checkUnchanged(absolute, realPath, fd, identity, identity.size);
      const appender = new LineAppender(fd, realPath, identity.size, undefined, false);
      const parts: Parts = {
        ...{ path: absolute, realPath, header: tail.header, lock, fd, identity, appender, refs: [], byId: new Map(), leafId: tail.leaf?.id ?? null },
        ...{ branchRefs: [], branchEntries: [], issues: [], lineCount: 0, summary: tail.summary, lastTimestamp: tail.leaf?.timestamp, loaded: false },
      };
      return parts;
    }
    const index = await scanSession(realPath);
    checkUnchanged(absolute, realPath, fd, identity, index.size);
    const torn = index.goodSize < index.size ? { offset: index.goodSize, end: index.size, line: index.lineCount + 1 } : undefined;
    const appender = new LineAppender(fd, realPath, index.size, torn, index.missingFinalNewline);
    const branchRefs = branchPath(index.byId, index.leafId);
    const loaded = await readEntries(realPath, branchRefs);
    const issues = [...index.issues, ...loaded.issues];
    const { header, refs, byId, leafId, lineCount } = index;
    const summary = summaryOf(loaded.entries.filter((entry): entry is SessionEntry => entry !== undefined));
    const parts: Parts = {
      ...{ path: absolute, realPath, header, lock, fd, identity, appender, refs, byId, leafId, branchRefs, branchEntries: loaded.entries, issues, lineCount },
      ...{ summary, lastTimestamp: refs.at(-1)?.timestamp, loaded: true },
    };
    return parts;
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    lock.release();
    throw error;
  }
}
