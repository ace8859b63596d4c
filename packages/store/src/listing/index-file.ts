import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { encodeFacts, MAX_FACTS_TEXT, StoredFacts, type IndexedFile } from "./record.js";

export const INDEX_FILE = ".thread-index.json";
/**
 * A folder's index is INDEX_FILE, `{"version":4,"shards":S}`, and S shard
 * files `.thread-index-S-k.tsv`: shard k holds the transcripts whose names
 * hash to k, so every file stays within MAX_INDEX_BYTES whatever the count,
 * and a write after a transcript changed rewrites only its shard. A shard is
 * a line `{"version":4,"shard":"S-k"}`, then one line per file:
 * name, size, mtimeMs, ino and the facts record.ts encodes (empty for a
 * file that is not a transcript), separated by tabs, newest first.
 *
 * Lines rather than JSON: a shard is read with a few indexOf calls per
 * record, and a record's name and facts stay slices of the shard's text, so
 * reading 100,000 records copies no more than the shard and decodes no facts. Newest
 * first, so that sorting the rows merges runs. The files are ASCII when
 * the names are (facts escape everything else), which is read without
 * decoding UTF-8.
 */
export const INDEX_VERSION = 4;
/** A bigger index file is not read (it would cost more than it saves) and not written. */
export const MAX_INDEX_BYTES = 16 * 1024 * 1024;
/** Transcripts per shard the writer aims at. */
export const SHARD_RECORDS = 4096;
export const MAX_SHARDS = 4096;
export const SHARD_NAME = /^\.thread-index-(\d+)-(\d+)\.tsv$/;

export const shardFileName = (count: number, at: number): string => `.thread-index-${count}-${at}.tsv`;

/** FNV-1a over the name's UTF-16 units: which shard holds a name. */
export function shardOf(name: string, count: number): number {
  if (count === 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count;
}

/** The shard count for `records` transcripts: a power of two, each shard near SHARD_RECORDS. */
export function shardCountFor(records: number, perShard = SHARD_RECORDS): number {
  let count = 1;
  while (count < MAX_SHARDS && records > count * perShard) count *= 2;
  return count;
}

export interface LoadedIndex {
  files: Map<string, IndexedFile>;
  /** Something could not be used whole: the index should be rewritten even if nothing changes. */
  replace: boolean;
  /** The index files read, by name, to tell later whether someone rewrote them. */
  identities: Map<string, FileIdentity>;
  /** The shard count of what was read; 1 for a single file or none. */
  shards: number;
  /** The records each shard file held, by shard number. */
  byShard: IndexedFile[][];
}

/** One version of an index file: another process that rewrites it makes another. */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

export function identityOf(path: string): FileIdentity | undefined {
  try {
    const { ino, size, mtimeMs } = statSync(path);
    return { ino, size, mtimeMs };
  } catch {
    return undefined;
  }
}

export const sameIdentity = (a: FileIdentity | undefined, b: FileIdentity | undefined) =>
  a !== undefined && b !== undefined && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

/** A name the index may hold: a transcript's, printable ASCII, with nothing that could leave the folder. */
export function isIndexableName(name: string): boolean {
  return name.length <= 1024 && name.endsWith(".jsonl") && /^[\x20-\x7e]+$/.test(name) && !name.includes("/") && !name.includes("\\");
}

type ReadResult = { bytes: Buffer; identity: FileIdentity } | { missing: boolean };

/**
 * One index file's text. Sync: one open and one read instead of several
 * trips through the thread pool, on the first listing's path; non-blocking,
 * so that a FIFO in the file's place is refused rather than waited on.
 */
function readIndexFile(path: string): ReadResult {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_INDEX_BYTES) return { missing: false };
    const bytes = readFileSync(fd);
    if (bytes.length > MAX_INDEX_BYTES) return { missing: false };
    return { bytes, identity: { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs } };
  } catch (error) {
    return { missing: (error as NodeJS.ErrnoException).code === "ENOENT" };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The shard count INDEX_FILE's text names, or undefined when it is not one this code wrote. */
function shardCountOf(text: string): number | undefined {
  const top = parseObject(text);
  const shards = top?.shards;
  return top?.version === INDEX_VERSION && Number.isSafeInteger(shards) && (shards as number) >= 1 && (shards as number) <= MAX_SHARDS
    ? (shards as number)
    : undefined;
}

/** The decimal count in text[start, end), or -1 when it is not one. */
function countAt(text: string, start: number, end: number): number {
  if (end <= start || end - start > 15) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Takes the records of one shard's bytes into `files` and `taken`; a
 * record that does not check out is left out alone (its transcript is
 * simply read again). Answers whether the shard was whole. The bytes are
 * made one Latin-1 string, and each record's name and facts are slices of
 * it: V8's own string search and slices cost about a third of a call into
 * the Buffer per field, on a first listing where this code is still cold.
 */
function takeRecords(bytes: Buffer, shard: string, dir: string, files: Map<string, IndexedFile>, taken: IndexedFile[]): boolean {
  const text = bytes.toString("latin1");
  let at = text.indexOf("\n");
  if (at === -1 || text.slice(0, at) !== `{"version":${INDEX_VERSION},"shard":"${shard}"}`) return false;
  let whole = true;
  for (let start = at + 1; start < text.length; start = at + 1) {
    at = text.indexOf("\n", start);
    // A line cut short (a file truncated) is not a record.
    if (at === -1) return false;
    const a = text.indexOf("\t", start);
    const b = a === -1 || a > at ? -1 : text.indexOf("\t", a + 1);
    const c = b === -1 || b > at ? -1 : text.indexOf("\t", b + 1);
    const d = c === -1 || c > at ? -1 : text.indexOf("\t", c + 1);
    if (d === -1 || d > at || at - d - 1 > MAX_FACTS_TEXT) {
      whole = false;
      continue;
    }
    const name = text.slice(start, a);
    const size = countAt(text, a + 1, b);
    const ino = countAt(text, c + 1, d);
    const mtimeMs = c - b - 1 > 0 && c - b - 1 <= 32 ? Number(text.slice(b + 1, c)) : NaN;
    if (size < 0 || ino < 0 || !Number.isFinite(mtimeMs) || !isIndexableName(name)) {
      whole = false;
      continue;
    }
    const file: IndexedFile = d + 1 === at ? { name, dir, size, mtimeMs, ino } : { name, dir, size, mtimeMs, ino, facts: StoredFacts.inShard(text, d + 1, at) };
    files.set(name, file);
    taken.push(file);
  }
  return whole;
}

/** Whether the folder's index is sharded beyond one file, from its small top file: a big folder, known before its shards are read. */
export function isShardedIndex(dir: string): boolean {
  const read = readIndexFile(dir + INDEX_FILE);
  return "bytes" in read && read.bytes.length <= 256 && (shardCountOf(read.bytes.toString("utf8")) ?? 1) > 1;
}

/**
 * Reads a folder's index, its shards included. A missing, unreadable,
 * corrupt, oversized or foreign-version file gives no records (a shard
 * alone, those of its shard); a record that does not check out is dropped
 * alone. Never throws: the index is only a cache. `dir` ends in the path
 * separator.
 */
export function loadIndex(dir: string): LoadedIndex {
  const files = new Map<string, IndexedFile>();
  const identities = new Map<string, FileIdentity>();
  const read = readIndexFile(dir + INDEX_FILE);
  if (!("bytes" in read)) return { files, replace: !read.missing, identities, shards: 1, byShard: [[]] };
  identities.set(INDEX_FILE, read.identity);
  const shards = read.bytes.length <= 256 ? shardCountOf(read.bytes.toString("utf8")) : undefined;
  if (shards === undefined) return { files, replace: true, identities, shards: 1, byShard: [[]] };
  let replace = false;
  const byShard: IndexedFile[][] = [];
  for (let at = 0; at < shards; at++) {
    const name = shardFileName(shards, at);
    const taken: IndexedFile[] = [];
    byShard.push(taken);
    const shard = readIndexFile(dir + name);
    if (!("bytes" in shard)) {
      replace = true;
      continue;
    }
    identities.set(name, shard.identity);
    if (!takeRecords(shard.bytes, `${shards}-${at}`, dir, files, taken)) replace = true;
  }
  return { files, replace, identities, shards, byShard };
}

/** A shard's text: its records newest first, one line each, with anything beyond ASCII in the facts escaped. */
export function serializeShard(records: readonly IndexedFile[], shard: string): string {
  const lines = [`{"version":${INDEX_VERSION},"shard":"${shard}"}`];
  const sorted = records.filter((file) => isIndexableName(file.name)).sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const file of sorted) {
    const facts = file.facts === undefined ? "" : encodeFacts(file.facts, file.name, file.size);
    lines.push(`${file.name}\t${file.size}\t${file.mtimeMs}\t${file.ino}\t${facts}`);
  }
  return lines.join("\n") + "\n";
}
