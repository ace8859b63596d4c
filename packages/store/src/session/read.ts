import { readSync } from "node:fs";
import { parseEntryLine, type SessionEntry, type SessionHeader } from "./format.js";
import { openForReading, readHeaderFrom, scanSession, type EntryRef, type ScanOptions, type SessionIssue } from "./scan.js";

/** A transcript as a reader sees it: the header and the current branch, parsed. */
export interface SessionSnapshot {
  path: string;
  header: SessionHeader;
  leafId: string | null;
  /** The branch, root first, leaf last. */
  entries: SessionEntry[];
  issues: SessionIssue[];
}

export interface ReadEntriesResult {
  /** Aligned with the refs asked for; undefined where a line could not be used (see `issues`). */
  entries: Array<SessionEntry | undefined>;
  issues: SessionIssue[];
}

interface TreeNode {
  id: string;
  parentId: string | null;
}

/** The path from the root to `leafId`, root first. Empty for a null leaf; stops at a parent missing from `byId`. */
export function branchPath<T extends TreeNode>(byId: ReadonlyMap<string, T>, leafId: string | null): T[] {
  const path: T[] = [];
  let node = leafId === null ? undefined : byId.get(leafId);
  // A hand-made map could hold a cycle; the file's own index cannot.
  while (node !== undefined && path.length <= byId.size) {
    path.push(node);
    node = node.parentId === null ? undefined : byId.get(node.parentId);
  }
  return path.reverse();
}

export function entriesById<T extends TreeNode>(entries: Iterable<T>): Map<string, T> {
  const map = new Map<string, T>();
  for (const entry of entries) map.set(entry.id, entry);
  return map;
}

/** Reads only line 1. */
export async function readSessionHeader(path: string): Promise<SessionHeader> {
  const file = await openForReading(path);
  try {
    return await readHeaderFrom(file, path);
  } finally {
    await file.close();
  }
}

/** Neighbouring lines closer than this are read in one go. */
const MAX_GAP = 64 * 1024;
const MAX_RUN = 8 * 1024 * 1024;

/** A byte range read at once, covering refs[order[first..last]]. */
interface Run {
  start: number;
  end: number;
  order: number[];
}

function planRuns(refs: readonly EntryRef[]): Run[] {
  const order = refs.map((_, i) => i).sort((a, b) => refs[a]!.offset - refs[b]!.offset);
  const runs: Run[] = [];
  let run: Run | undefined;
  for (const i of order) {
    const { offset, length } = refs[i]!;
    if (run !== undefined && offset - run.end <= MAX_GAP && offset + length - run.start <= MAX_RUN) {
      run.end = Math.max(run.end, offset + length);
      run.order.push(i);
      continue;
    }
    run = { start: offset, end: offset + length, order: [i] };
    runs.push(run);
  }
  return runs;
}

function parseRun(buffer: Buffer, bytesRead: number, run: Run, refs: readonly EntryRef[], out: ReadEntriesResult): void {
  for (const i of run.order) {
    const ref = refs[i]!;
    const from = ref.offset - run.start;
    const issue = { line: ref.line, offset: ref.offset, entryId: ref.id };
    if (from + ref.length > bytesRead) {
      out.issues.push({ ...issue, kind: "corrupt", message: "the line is no longer in the file" });
      continue;
    }
    const parsed = parseEntryLine(buffer.toString("utf8", from, from + ref.length));
    if (!parsed.ok) {
      out.issues.push({ ...issue, kind: "corrupt", message: parsed.reason });
    } else if (parsed.entry.id !== ref.id || parsed.entry.type !== ref.type) {
      out.issues.push({ ...issue, kind: "corrupt", message: `the line holds ${parsed.entry.type} ${parsed.entry.id}, not ${ref.type} ${ref.id}` });
    } else {
      // The index may have re-attached an orphan; keep the entry consistent with it.
      if (parsed.entry.parentId !== ref.parentId) parsed.entry.parentId = ref.parentId;
      out.entries[i] = parsed.entry;
    }
  }
}

/** Reads and parses the given entries by offset, for paging: memory follows the refs asked for, not the file. */
export async function readEntries(path: string, refs: readonly EntryRef[]): Promise<ReadEntriesResult> {
  const out: ReadEntriesResult = { entries: new Array<SessionEntry | undefined>(refs.length).fill(undefined), issues: [] };
  if (refs.length === 0) return out;
  const file = await openForReading(path);
  try {
    for (const run of planRuns(refs)) {
      const buffer = Buffer.allocUnsafe(run.end - run.start);
      let bytesRead = 0;
      while (bytesRead < buffer.length) {
        const n = (await file.read(buffer, bytesRead, buffer.length - bytesRead, run.start + bytesRead)).bytesRead;
        if (n === 0) break;
        bytesRead += n;
      }
      parseRun(buffer, bytesRead, run, refs, out);
    }
  } finally {
    await file.close();
  }
  return out;
}

/** The same, from a descriptor the caller holds open (the owner's). */
export function readEntriesSync(fd: number, refs: readonly EntryRef[]): ReadEntriesResult {
  const out: ReadEntriesResult = { entries: new Array<SessionEntry | undefined>(refs.length).fill(undefined), issues: [] };
  for (const run of planRuns(refs)) {
    const buffer = Buffer.allocUnsafe(run.end - run.start);
    let bytesRead = 0;
    while (bytesRead < buffer.length) {
      const n = readSync(fd, buffer, bytesRead, buffer.length - bytesRead, run.start + bytesRead);
      if (n === 0) break;
      bytesRead += n;
    }
    parseRun(buffer, bytesRead, run, refs, out);
  }
  return out;
}

/**
 * Reads a transcript without locking it and without writing: the header and
 * the current branch, root to leaf. Lines that cannot be used are skipped and
 * listed in `issues`; only an unusable header fails ("notASessionFile").
 */
export async function readSession(path: string, options: ScanOptions = {}): Promise<SessionSnapshot> {
  const index = await scanSession(path, options);
  const branch = branchPath(index.byId, index.leafId);
  const { entries, issues } = await readEntries(path, branch);
  return {
    path,
    header: index.header,
    leafId: index.leafId,
    entries: entries.filter((entry): entry is SessionEntry => entry !== undefined),
    issues: [...index.issues, ...issues],
  };
}
