import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { identityOf, INDEX_FILE, INDEX_VERSION, MAX_SHARDS, shardFileName, type FileIdentity } from "./index-file.js";

/**
 * Whether a new process may answer its first page from a folder's index
 * alone, before it has statted a transcript. Every KnightCode process
 * writes the index through as it writes transcripts, so when nothing in
 * the folder changed since the index was last written, the index is what a
 * full look would find. STAMP_FILE says what "nothing changed" means, and
 * costs a few stats to check:
 *
 * - `folder`: the folder's mtime, ctime and inode, taken after the index
 *   writer's last rename into the folder. A transcript created, deleted or
 *   renamed since, by anyone, and any rewrite of an index file (a rename
 *   too) moves the folder's times, so the stamp no longer holds.
 * - `check`: a hash of the index files' inodes, sizes and mtimes (the top
 *   file and every shard), so that one edited in place is seen too, and so
 *   that the files read later must be the ones checked.
 *
 * The stamp is written over its file in place, which leaves the folder's
 * times alone (a rename would move them, and the stamp could never match);
 * the file is padded to STAMP_BYTES so that no truncate is needed, and one
 * torn or cut short does not parse, so it is not trusted.
 *
 * What the stamp cannot see, and what the full look that follows a
 * trusted first page repairs: a transcript appended to or rewritten in
 * place by a program that does not write the index (the folder's times do
 * not move); a KnightCode process that wrote a transcript and died before
 * its index caught up (WRITTEN_FLUSH_MS later: the index misses that write
 * while the folder looks unchanged); and a change to the folder within the
 * same tick of a coarse file clock as the stamp, which leaves its times
 * equal.
 */
export const STAMP_FILE = ".thread-list-stamp.json";
export const STAMP_BYTES = 256;

export interface IndexStamp {
  shards: number;
  folder: FolderIdentity;
  check: string;
}

export interface FolderIdentity {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

function folderIdentity(dir: string): FolderIdentity | undefined {
  try {
    const { mtimeMs, ctimeMs, ino } = statSync(dir);
    return { mtimeMs, ctimeMs, ino };
  } catch {
    return undefined;
  }
}

/** A hash of the index files' identities, the top file first; undefined when one is missing. */
function checkOf(identities: ReadonlyMap<string, FileIdentity>, shards: number): string | undefined {
  const hash = createHash("sha256");
  for (const name of [INDEX_FILE, ...Array.from({ length: shards }, (_, at) => shardFileName(shards, at))]) {
    const identity = identities.get(name);
    if (identity === undefined) return undefined;
    hash.update(`${name}:${identity.ino}:${identity.size}:${identity.mtimeMs};`);
  }
  return hash.digest("base64url").slice(0, 16);
}

/** The index files' identities as they are on disk now. */
export function indexIdentities(dir: string, shards: number): Map<string, FileIdentity> {
  const identities = new Map<string, FileIdentity>();
  for (const name of [INDEX_FILE, ...Array.from({ length: shards }, (_, at) => shardFileName(shards, at))]) {
    const identity = identityOf(dir + name);
    if (identity !== undefined) identities.set(name, identity);
  }
  return identities;
}

/**
 * Whether `stamp` still describes the folder and the index files whose
 * `identities` are given. The folder is statted last: a change made while
 * the index was being read moves its times.
 */
export function stampHolds(dir: string, stamp: IndexStamp, identities: ReadonlyMap<string, FileIdentity>): boolean {
  if (checkOf(identities, stamp.shards) !== stamp.check) return false;
  const folder = folderIdentity(dir);
  return folder !== undefined && folder.mtimeMs === stamp.folder.mtimeMs && folder.ctimeMs === stamp.folder.ctimeMs && folder.ino === stamp.folder.ino;
}

const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_SHARDS;
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

function stampFrom(value: unknown): IndexStamp | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { version, shards, folder, check } = value as Record<string, unknown>;
  if (version !== INDEX_VERSION || !isCount(shards) || typeof check !== "string" || typeof folder !== "object" || folder === null) return undefined;
  const { mtimeMs, ctimeMs, ino } = folder as Record<string, unknown>;
  if (!isNumber(mtimeMs) || !isNumber(ctimeMs) || !isNumber(ino)) return undefined;
  return { shards: shards as number, folder: { mtimeMs, ctimeMs, ino }, check };
}

/** The folder's stamp, when STAMP_FILE holds a whole one. Sync and non-blocking, as the index's own reads. */
export function readStamp(dir: string): IndexStamp | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(dir + STAMP_FILE, constants.O_RDONLY | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size !== STAMP_BYTES) return undefined;
    return stampFrom(JSON.parse(readFileSync(fd, "latin1")));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes `text` over STAMP_FILE in place, creating it first when there is none. */
function overwrite(dir: string, text: string, create: boolean): boolean {
  let fd: number | undefined;
  try {
    const flags = constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (create ? constants.O_CREAT | constants.O_EXCL : 0);
    fd = openSync(dir + STAMP_FILE, flags, 0o600);
    const stats = fstatSync(fd);
    if (!stats.isFile() || (!create && stats.size !== STAMP_BYTES) || text.length !== STAMP_BYTES) return false;
    return writeSync(fd, text, 0, "latin1") === STAMP_BYTES;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const padded = (value: object) => JSON.stringify(value).padEnd(STAMP_BYTES - 1, " ") + "\n";

/**
 * Stamps the folder's index, after the writer's last rename into the
 * folder: the index files `identities` in `shards` shards are the folder's
 * truth. A missing stamp file is made first (which moves the folder's
 * times, so the folder is statted after). Best effort, as the index is.
 */
export function writeStamp(dir: string, shards: number, identities: ReadonlyMap<string, FileIdentity>): void {
  const check = checkOf(identities, shards);
  if (check === undefined) return;
  const stampNow = () => {
    const folder = folderIdentity(dir);
    return folder !== undefined && overwrite(dir, padded({ version: INDEX_VERSION, shards, folder, check }), false);
  };
  if (!stampNow() && overwrite(dir, padded({ version: INDEX_VERSION }), true)) stampNow();
}
