import type { FileHandle } from "node:fs/promises";
import { SessionFileError } from "./errors.js";
import { parseEntryLine, type SessionEntry, type SessionHeader } from "./format.js";
import { HEAD_BYTES } from "./line-splitter.js";
import { readEntryPrefix, type EntryPrefix } from "./prefix.js";
import { branchPath, readEntries, readSession } from "./read.js";
import { openForReading, readHeaderFrom, scanSession, type EntryRef, type SessionIssue } from "./scan.js";
import { checkpointOf, summaryOf, type BranchSummary } from "./summary.js";

/** Where an older page continues: the entry wanted next, and the offset of its child, which appends cannot move. */
export interface BranchCursor {
  id: string;
  before: number;
}

export interface BranchPageOptions {
  /** Turns per page: a page reaches back to its `turns`-th turn_start entry. */
  turns: number;
  /** Continue from an earlier page; start at the file's leaf otherwise. */
  cursor?: BranchCursor;
  /** Without a cursor: the branch that ends at this entry (one a rewind left behind) rather than the file's leaf. */
  leaf?: string;
  /** Read size; small values exercise chunk boundaries in tests. */
  chunkSize?: number;
  /**
   * Asked for each turn_end the walk meets: true when the caller already
   * holds what that turn became (a large saved turn it sent before). The
   * entries between that end and its turn_start are then taken by their
   * prefix alone, as BodylessEntry, not parsed: reading past a turn of
   * 40,000 entries costs their prefixes, not their JSON.
   */
  skipTurnBody?: (turnId: string, endId: string) => boolean;
}

/**
 * An entry of a skipped turn body (see skipTurnBody): its four common keys
 * and nothing else. Only a caller that asked for it meets one.
 */
export interface BodylessEntry {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: number;
  bodyless: true;
}

export function isBodyless(entry: SessionEntry): boolean {
  return (entry as Partial<BodylessEntry>).bodyless === true;
}

export interface BranchPage {
  header: SessionHeader;
  /** A stretch of the branch, oldest first. */
  entries: SessionEntry[];
  /** Present while older entries remain. */
  next: BranchCursor | undefined;
  /**
   * For each turn_start on the page (by entry id, which is the turn's id):
   * the cursor of a page that ends just before that turn, for a caller that
   * keeps only the newer turns of this page. Absent for a root entry.
   */
  turnStarts: Map<string, BranchCursor>;
  issues: SessionIssue[];
  /** "end": read backwards from the end of the file; "index": from the full index, because of damage on the way. */
  readFrom: "end" | "index";
}

const LF = 0x0a;
const CLOSE_BRACE = 0x7d;

/** The backward walk met something only the full index settles: a corrupt line, a missing parent, an odd cursor. */
class NeedsFullIndex extends Error {}

/** One chunk read backwards: file bytes [start, start + end) sit in buffer[0, end). */
interface Chunk {
  file: FileHandle;
  buffer: Buffer;
  start: number;
  end: number;
}

async function readAt(file: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await file.read(buffer, read, length - read, offset + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return buffer.subarray(0, read);
}

/** Bytes [offset, offset + length) of the file, from the chunk when they lie in it. */
async function bytesAt(chunk: Chunk, offset: number, length: number): Promise<Buffer> {
  const at = offset - chunk.start;
  if (at >= 0 && at + length <= chunk.end) return chunk.buffer.subarray(at, at + length);
  return readAt(chunk.file, offset, length);
}

function lastSignificant(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= 0; i--) if (bytes[i] !== 0x20 && bytes[i] !== 0x09 && bytes[i] !== 0x0d) return bytes[i]!;
  return -1;
}

type Line = { id: string; entry?: SessionEntry } | "blank" | "corrupt";

/** Bytes [offset, offset + length) of the file when the chunk holds them all: no read, no await. */
function inChunk(chunk: Chunk, offset: number, length: number): Buffer | undefined {
  const at = offset - chunk.start;
  return at >= 0 && at + length <= chunk.end ? chunk.buffer.subarray(at, at + length) : undefined;
}

function parsedLine(bytes: Buffer): Line {
  const text = bytes.toString("utf8");
  if (text.trim() === "") return "blank";
  const parsed = parseEntryLine(text);
  return parsed.ok ? { id: parsed.entry.id, entry: parsed.entry } : "corrupt";
}

/** What a line the chunk holds whole is: the same answer as `identify`, without awaiting. */
function identifyInChunk(line: Buffer, parseWhole: boolean, prefix: EntryPrefix): Line {
  if (line.length === 0) return "blank";
  if (!parseWhole && readEntryPrefix(line, 0, Math.min(line.length, HEAD_BYTES), null, prefix)) {
    return lastSignificant(line.subarray(line.length - Math.min(line.length, 64))) === CLOSE_BRACE ? { id: prefix.id } : "corrupt";
  }
  return parsedLine(line);
}

/** What a line is, from its prefix when it can be (as the forward scan does), else parsed whole. */
async function identify(chunk: Chunk, offset: number, length: number, parseWhole: boolean, prefix: EntryPrefix): Promise<Line> {
  if (length === 0) return "blank";
  if (!parseWhole) {
    const head = await bytesAt(chunk, offset, Math.min(length, HEAD_BYTES));
    if (readEntryPrefix(head, 0, head.length, null, prefix)) {
      const tail = await bytesAt(chunk, offset + length - Math.min(length, 64), Math.min(length, 64));
      return lastSignificant(tail) === CLOSE_BRACE ? { id: prefix.id } : "corrupt";
    }
  }
  return parsedLine(await bytesAt(chunk, offset, length));
}

interface Walk {
  options: BranchPageOptions;
  size: number;
  issues: SessionIssue[];
  found: Array<{ entry: SessionEntry; offset: number }>;
  turns: number;
  /** The id looked for; undefined until the leaf is found, null past the root. */
  wanted: string | null | undefined;
  /** No line seen yet while reading from the file's end: that line is checked whole, for a torn tail. */
  atTail: boolean;
  prefix: EntryPrefix;
  /** The turn whose body is being passed over (see skipTurnBody). */
  skipping: string | undefined;
}

/**
 * Handles one line met walking back; true when the page is complete. A line
 * the chunk holds whole (nearly all of them) is handled without awaiting:
 * a page of many thousand entries is not as many rounds of promises.
 */
function visit(walk: Walk, chunk: Chunk, offset: number, length: number): boolean | Promise<boolean> {
  const whole = inChunk(chunk, offset, length);
  if (whole === undefined) return visitRead(walk, chunk, offset, length);
  const line = identifyInChunk(whole, walk.atTail, walk.prefix);
  if (!wanted(walk, line, offset, length)) return false;
  return found(walk, offset, line.entry ?? bodyless(walk) ?? parseLine(whole, line.id));
}

/** The entry of a line identified by its prefix inside a skipped turn body, from that prefix alone. */
function bodyless(walk: Walk): SessionEntry | undefined {
  const { prefix } = walk;
  if (walk.skipping === undefined || prefix.type === "turn_start") return undefined;
  const entry: BodylessEntry = { type: prefix.type, id: prefix.id, parentId: prefix.parentId, timestamp: prefix.timestamp, bodyless: true };
  return entry as unknown as SessionEntry;
}

/** The same for a line that starts before the chunk: its bytes are read as needed. */
async function visitRead(walk: Walk, chunk: Chunk, offset: number, length: number): Promise<boolean> {
  const line = await identify(chunk, offset, length, walk.atTail, walk.prefix);
  if (!wanted(walk, line, offset, length)) return false;
  return found(walk, offset, line.entry ?? bodyless(walk) ?? parseLine(await bytesAt(chunk, offset, length), line.id));
}

/** Whether an identified line is the entry the walk looks for; a torn last line is noted, other damage sends the page to the full index. */
function wanted(walk: Walk, line: Line, offset: number, length: number): line is { id: string; entry?: SessionEntry } {
  if (line === "blank") return false;
  const tail = walk.atTail;
  walk.atTail = false;
  if (line === "corrupt") {
    if (!tail || offset + length !== walk.size) throw new NeedsFullIndex();
    walk.issues.push({ kind: "torn", line: 0, offset, message: "the last line stops short" });
    return false;
  }
  return walk.wanted === undefined || line.id === walk.wanted;
}

/** The entry of a line identified by its prefix, parsed now that it is wanted. */
function parseLine(bytes: Buffer, id: string): SessionEntry {
  const parsed = parseEntryLine(bytes.toString("utf8"));
  if (!parsed.ok || parsed.entry.id !== id) throw new NeedsFullIndex();
  return parsed.entry;
}

/** Takes the entry looked for onto the page; true when the page is complete. */
function found(walk: Walk, offset: number, entry: SessionEntry): boolean {
  walk.found.push({ entry, offset });
  if (entry.type === "turn_start") {
    walk.turns++;
    walk.skipping = undefined;
  } else if (entry.type === "turn_end" && walk.options.skipTurnBody !== undefined) {
    const { turnId } = entry as { turnId?: unknown };
    if (typeof turnId === "string" && walk.options.skipTurnBody(turnId, entry.id)) walk.skipping = turnId;
  }
  walk.wanted = entry.parentId;
  return walk.wanted === null || walk.turns >= walk.options.turns;
}

/**
 * Walks the file backwards from its end (or the cursor), following parent
 * ids and parsing only entries on the branch: a newest page costs the bytes
 * of its turns, not the file. Parents always precede children in a
 * transcript, so one backward pass finds them.
 */
async function pageBackward(file: FileHandle, size: number, walk: Walk): Promise<void> {
  const { cursor } = walk.options;
  const chunkSize = walk.options.chunkSize ?? 256 * 1024;
  const chunk: Chunk = { file, buffer: Buffer.allocUnsafe(chunkSize), start: 0, end: 0 };
  let lineEnd = cursor?.before ?? size;
  for (let pos = lineEnd; pos > 0; pos = chunk.start) {
    chunk.start = Math.max(0, pos - chunkSize);
    chunk.end = (await file.read(chunk.buffer, 0, pos - chunk.start, chunk.start)).bytesRead;
    if (chunk.end !== pos - chunk.start) throw new NeedsFullIndex();
    for (let searchEnd = chunk.end; searchEnd > 0; ) {
      const lf = chunk.buffer.lastIndexOf(LF, searchEnd - 1);
      if (lf === -1) break;
      const lineStart = chunk.start + lf + 1;
      const done = visit(walk, chunk, lineStart, lineEnd - lineStart);
      if (done === true || (done !== false && (await done))) return;
      lineEnd = chunk.start + lf;
      searchEnd = lf;
    }
  }
  // Only the header is left: a pending parent is missing from the file.
  if (walk.wanted !== undefined || walk.found.length > 0) throw new NeedsFullIndex();
}

/** A cursor must name the parent of the entry starting exactly at `before`. */
async function checkCursor(file: FileHandle, cursor: BranchCursor, size: number): Promise<void> {
  if (!Number.isSafeInteger(cursor.before) || cursor.before < 1 || cursor.before >= size) throw new NeedsFullIndex();
  const head = await readAt(file, cursor.before - 1, HEAD_BYTES + 1);
  const prefix: EntryPrefix = { type: "", id: "", parentId: null, timestamp: 0 };
  if (head[0] !== LF || !readEntryPrefix(head, 1, head.length, null, prefix) || prefix.parentId !== cursor.id) throw new NeedsFullIndex();
}

function badCursor(path: string, cursor: BranchCursor): SessionFileError {
  return new SessionFileError("notFound", `${path} has no branch entry ${cursor.id} before byte ${cursor.before}`, { path, entryId: cursor.id });
}

/** The same page from the full index: slower, but it settles every repair the forward scan makes. Exported for tests. */
export async function pageFromIndex(path: string, options: BranchPageOptions): Promise<BranchPage> {
  const index = await scanSession(path, options.chunkSize === undefined ? {} : { chunkSize: options.chunkSize });
  const { cursor } = options;
  if (cursor !== undefined) {
    const child = index.refs.find((ref) => ref.offset === cursor.before);
    if (child === undefined || child.parentId !== cursor.id) throw badCursor(path, cursor);
  }
  const leaf = cursor?.id ?? options.leaf ?? index.leafId;
  if (cursor === undefined && options.leaf !== undefined && !index.byId.has(options.leaf)) {
    throw new SessionFileError("notFound", `${path} has no entry ${options.leaf}`, { path, entryId: options.leaf });
  }
  const branch = branchPath(index.byId, leaf);
  let from = branch.length;
  for (let turns = 0; from > 0 && turns < options.turns; ) if (branch[--from]!.type === "turn_start") turns++;
  const refs: EntryRef[] = branch.slice(from);
  const read = await readEntries(path, refs);
  const first = refs[0];
  const next = first !== undefined && first.parentId !== null ? { id: first.parentId, before: first.offset } : undefined;
  const entries = read.entries.filter((entry): entry is SessionEntry => entry !== undefined);
  const turnStarts = new Map<string, BranchCursor>();
  for (const ref of refs) if (ref.type === "turn_start" && ref.parentId !== null) turnStarts.set(ref.id, { id: ref.parentId, before: ref.offset });
  return { header: index.header, entries, next, turnStarts, issues: [...index.issues, ...read.issues], readFrom: "index" };
}

/**
 * One page of the current branch, for thread/read: pages go from newest to
 * oldest, entries within a page oldest first. A page reaches back to its
 * `turns`-th turn_start (the oldest page also holds what precedes the first
 * turn). Well-formed files are read backwards from the end, so the cost
 * follows the page, not the file; a file with damage on the way is paged from
 * the full index instead, with the same result. A cursor that does not fit
 * the file is "notFound". Never locks or writes.
 */
export async function readBranchPage(path: string, options: BranchPageOptions): Promise<BranchPage> {
  if (!Number.isInteger(options.turns) || options.turns < 1) throw new RangeError(`turns must be a positive integer, not ${options.turns}`);
  const file = await openForReading(path);
  try {
    const header = await readHeaderFrom(file, path);
    const size = (await file.stat()).size;
    const prefix: EntryPrefix = { type: "", id: "", parentId: null, timestamp: 0 };
    const walk: Walk = {
      options,
      size,
      issues: [],
      found: [],
      turns: 0,
      wanted: options.cursor?.id ?? options.leaf,
      atTail: options.cursor === undefined,
      prefix,
      skipping: undefined,
    };
    try {
      if (options.cursor !== undefined) await checkCursor(file, options.cursor, size);
      await pageBackward(file, size, walk);
      const oldest = walk.found.at(-1);
      const next = oldest !== undefined && oldest.entry.parentId !== null ? { id: oldest.entry.parentId, before: oldest.offset } : undefined;
      const turnStarts = new Map<string, BranchCursor>();
      for (const { entry, offset } of walk.found) {
        if (entry.type === "turn_start" && entry.parentId !== null) turnStarts.set(entry.id, { id: entry.parentId, before: offset });
      }
      return { header, entries: walk.found.reverse().map((f) => f.entry), next, turnStarts, issues: walk.issues, readFrom: "end" };
    } catch (error) {
      if (!(error instanceof NeedsFullIndex)) throw error;
    }
  } finally {
    await file.close();
  }
  return pageFromIndex(path, options);
}

/** What a branch leaves behind, read from its newest checkpoint rather than from its whole history. */
export interface BranchTail {
  summary: BranchSummary;
  /** The newest entry of the branch (the file's last line), or undefined when there is none. */
  leaf: SessionEntry | undefined;
  header: SessionHeader;
}

/** Pages walked back looking for a checkpoint before reading the whole branch instead. */
const CHECKPOINT_PAGES = 4;

/**
 * Walks the current branch back from its leaf, two turns at a time, to the
 * newest turn_end that carries a checkpoint, and folds what came after it
 * into that checkpoint. A transcript written before checkpoints existed (no
 * checkpoint in its last turns) is summarized from its whole branch. Never
 * locks or writes.
 */
export async function readBranchTail(path: string): Promise<BranchTail> {
  const newer: SessionEntry[][] = [];
  let cursor: BranchCursor | undefined;
  let header: SessionHeader | undefined;
  let leaf: SessionEntry | undefined;
  for (let pages = 0; pages < CHECKPOINT_PAGES; pages++) {
    const page = await readBranchPage(path, { turns: 2, ...(cursor ? { cursor } : {}) });
    header ??= page.header;
    if (cursor === undefined) leaf = page.entries.at(-1);
    for (let i = page.entries.length - 1; i >= 0; i--) {
      const checkpoint = checkpointOf(page.entries[i]!);
      if (checkpoint) return { summary: summaryOf([...page.entries.slice(i + 1), ...newer.flat()], checkpoint), leaf, header };
    }
    newer.unshift(page.entries);
    if (!page.next) return { summary: summaryOf(newer.flat()), leaf, header };
    cursor = page.next;
  }
  const whole = await readSession(path);
  return { summary: summaryOf(whole.entries), leaf: whole.entries.at(-1), header: whole.header };
}
