import { open, type FileHandle } from "node:fs/promises";
import { errnoCode, SessionFileError } from "./errors.js";
import { parseEntryLine, SESSION_FORMAT_VERSION, toHeader, type SessionHeader } from "./format.js";
import { forEachLine, type LineView } from "./line-splitter.js";
import { readEntryPrefix, type EntryPrefix } from "./prefix.js";

/** Where an entry sits in its file, and the keys that place it in the tree. */
export interface EntryRef {
  type: string;
  id: string;
  /** After repair: a parent missing from the file is replaced by the entry before it. */
  parentId: string | null;
  timestamp: number;
  /** Byte offset of the line. */
  offset: number;
  /** Bytes of the line, without its LF. */
  length: number;
  /** 1-based line number (the header is line 1). */
  line: number;
}

export type SessionIssueKind =
  /** The last line stops short (a crash mid-write); it was skipped. */
  | "torn"
  /** A line that is not a usable entry; it was skipped. */
  | "corrupt"
  /** A second entry with an id already used; it was skipped. */
  | "duplicateId"
  /** An entry whose parent is not in the file; it was attached to the entry before it. */
  | "danglingParent"
  /** The header names a newer format version; unknown kinds pass through. */
  | "newerVersion"
  /** A writer moved a torn tail aside (`movedTo`) before appending. */
  | "tornMovedAside";

export interface SessionIssue {
  kind: SessionIssueKind;
  /** 1-based; 0 when the reader did not count lines (a backward page read). */
  line: number;
  offset: number;
  message: string;
  entryId?: string;
  movedTo?: string;
}

export interface SessionIndex {
  header: SessionHeader;
  /** Usable entries in file order. */
  refs: EntryRef[];
  byId: Map<string, EntryRef>;
  /** The last usable entry, or null when there is none. */
  leafId: string | null;
  issues: SessionIssue[];
  /** Bytes scanned (the file's size when the scan began). */
  size: number;
  /** End of the last whole line: a writer cuts a torn tail back to here. */
  goodSize: number;
  /** The last line is a whole entry without its LF: a writer adds one before appending. */
  missingFinalNewline: boolean;
  /** Lines up to `goodSize`, header and blank lines included. */
  lineCount: number;
}

export interface ScanOptions {
  /** Read size; small values exercise chunk boundaries in tests. */
  chunkSize?: number;
  /** Scan only the first `size` bytes (an owner's snapshot; later bytes are its own appends). */
  size?: number;
}

const CLOSE_BRACE = 0x7d;
const MAX_HEADER_BYTES = 64 * 1024;

/** A line that is not an entry, or one to parse whole once the pass is over. */
class LineNote {
  constructor(
    readonly line: number,
    readonly offset: number,
    readonly length: number,
    readonly terminated: boolean,
    readonly problem: "corrupt" | "torn" | "parseLater",
    readonly message: string,
  ) {}
}

type LineRecord = EntryRef | LineNote;

export function notASessionFile(path: string, why: string): SessionFileError {
  return new SessionFileError("notASessionFile", `${path} is not a session file: ${why}`, { path });
}

export function parseHeaderLine(path: string, text: string): SessionHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw notASessionFile(path, "line 1 is not JSON");
  }
  const header = toHeader(value);
  if (header === undefined) throw notASessionFile(path, "line 1 is not a session header");
  return header;
}

export async function openForReading(path: string): Promise<FileHandle> {
  try {
    return await open(path, "r");
  } catch (error) {
    if (errnoCode(error) === "ENOENT") throw new SessionFileError("notFound", `${path} does not exist`, { path, cause: error });
    throw error;
  }
}

function fromParsed(text: string, line: number, offset: number, length: number, terminated: boolean): LineRecord {
  const parsed = parseEntryLine(text);
  if (parsed.ok) {
    const { type, id, parentId, timestamp } = parsed.entry;
    return { type, id, parentId, timestamp, offset, length, line };
  }
  return new LineNote(line, offset, length, terminated, terminated ? "corrupt" : "torn", parsed.reason);
}

/** Pass 1: one record per non-blank line, reading only the fixed prefix of all but the last. */
function classify(view: LineView, line: number, isLast: boolean, previousId: string | null, prefix: EntryPrefix): LineRecord | undefined {
  const { offset, length, terminated } = view;
  if (view.lastSignificant === -1) return terminated ? undefined : new LineNote(line, offset, length, false, "torn", "blank unterminated tail");
  const text = () => view.bytes.toString("utf8", view.start, view.start + length);
  if (isLast) {
    // The last line is the one a crash tears: check all of it.
    return view.whole ? fromParsed(text(), line, offset, length, terminated) : new LineNote(line, offset, length, terminated, "parseLater", "");
  }
  if (readEntryPrefix(view.bytes, view.start, view.headEnd, previousId, prefix)) {
    if (view.lastSignificant !== CLOSE_BRACE) return new LineNote(line, offset, length, true, "corrupt", "line does not end its JSON object");
    return { type: prefix.type, id: prefix.id, parentId: prefix.parentId, timestamp: prefix.timestamp, offset, length, line };
  }
  return view.whole ? fromParsed(text(), line, offset, length, true) : new LineNote(line, offset, length, true, "parseLater", "");
}

/** Reads and checks line 1 alone, reading more only for an unusually long header. */
export async function readHeaderFrom(file: FileHandle, path: string): Promise<SessionHeader> {
  for (let want = 4096; ; want = MAX_HEADER_BYTES) {
    const buffer = Buffer.allocUnsafe(want);
    const { bytesRead } = await file.read(buffer, 0, want, 0);
    if (bytesRead === 0) throw notASessionFile(path, "the file is empty");
    const lf = buffer.subarray(0, bytesRead).indexOf(0x0a);
    if (lf !== -1 || bytesRead < want) return parseHeaderLine(path, buffer.toString("utf8", 0, lf === -1 ? bytesRead : lf));
    if (want === MAX_HEADER_BYTES) throw notASessionFile(path, "line 1 is too long for a header");
  }
}

async function readLine(file: FileHandle, offset: number, length: number): Promise<string> {
  const buffer = Buffer.allocUnsafe(length);
  const { bytesRead } = await file.read(buffer, 0, length, offset);
  return buffer.toString("utf8", 0, bytesRead);
}

/** Pass 2: links entries by id, skipping duplicates and re-attaching orphans. */
function link(records: LineRecord[], issues: SessionIssue[]): Pick<SessionIndex, "refs" | "byId" | "leafId"> {
  const refs: EntryRef[] = [];
  const byId = new Map<string, EntryRef>();
  let previous: EntryRef | undefined;
  for (const record of records) {
    if (record instanceof LineNote) {
      const kind = record.problem === "torn" ? "torn" : "corrupt";
      issues.push({ kind, line: record.line, offset: record.offset, message: record.message });
      continue;
    }
    const { line, offset, id } = record;
    if (byId.has(id)) {
      issues.push({ kind: "duplicateId", line, offset, entryId: id, message: `id ${id} is already used by line ${byId.get(id)!.line}` });
      continue;
    }
    // Usually the parent is the line before, whose id string the prefix reader already reused.
    if (record.parentId !== null && record.parentId !== previous?.id) {
      const parent = byId.get(record.parentId);
      if (parent === undefined) {
        const message = `parent ${record.parentId} is not in the file; attached to ${previous?.id ?? "the root"}`;
        issues.push({ kind: "danglingParent", line, offset, entryId: id, message });
      }
      // Sharing the parent's string keeps one copy of each id in memory.
      record.parentId = parent?.id ?? previous?.id ?? null;
    }
    byId.set(id, record);
    refs.push(record);
    previous = record;
  }
  return { refs, byId, leafId: previous?.id ?? null };
}

/**
 * Indexes a transcript without parsing its entries: a streaming pass reads
 * each line's fixed-prefix keys from its first bytes, and only the header, the
 * last line and lines laid out unusually are parsed whole. Throws
 * "notASessionFile" when line 1 is unusable; every other problem is skipped
 * and reported in `issues`.
 */
export async function scanSession(path: string, options: ScanOptions = {}): Promise<SessionIndex> {
  const file = await openForReading(path);
  try {
    const size = Math.min(options.size ?? Number.MAX_SAFE_INTEGER, (await file.stat()).size);
    const header = await readHeaderFrom(file, path);
    let lineNumber = 0;
    const records: LineRecord[] = [];
    let lastTerminated = true;
    let previousId: string | null = null;
    const prefix: EntryPrefix = { type: "", id: "", parentId: null, timestamp: 0 };
    const scanned = await forEachLine(file, size, options.chunkSize ?? 1024 * 1024, (view) => {
      lineNumber++;
      const isLast = view.offset + view.length + (view.terminated ? 1 : 0) >= size;
      if (isLast) lastTerminated = view.terminated || view.lastSignificant === -1;
      if (lineNumber === 1) return;
      const record = classify(view, lineNumber, isLast, previousId, prefix);
      if (record === undefined) return;
      records.push(record);
      if (!(record instanceof LineNote)) previousId = record.id;
    });
    for (let i = 0; i < records.length; i++) {
      const record = records[i];
      if (!(record instanceof LineNote) || record.problem !== "parseLater") continue;
      const text = await readLine(file, record.offset, record.length);
      records[i] = fromParsed(text, record.line, record.offset, record.length, record.terminated);
    }
    const issues: SessionIssue[] = [];
    if (header.version > SESSION_FORMAT_VERSION) {
      issues.push({ kind: "newerVersion", line: 1, offset: 0, message: `format version ${header.version} is newer than ${SESSION_FORMAT_VERSION}` });
    }
    const tail = records.at(-1);
    const tornTail = tail instanceof LineNote && tail.problem === "torn" ? tail : undefined;
    return {
      header,
      ...link(records, issues),
      issues,
      size: scanned,
      goodSize: tornTail?.offset ?? scanned,
      missingFinalNewline: tornTail === undefined && !lastTerminated,
      lineCount: tornTail === undefined ? lineNumber : lineNumber - 1,
    };
  } finally {
    await file.close();
  }
}
