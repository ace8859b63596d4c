import { factsOf, factsOrUndefined, pathOf, updatedMsOf, type Row } from "./record.js";
import { TITLE_MAX, boundText } from "./title.js";
import type { TranscriptFacts } from "./transcript-scan.js";
import type { StoredThreadSummary } from "./types.js";

/** A record whose facts do not decode sorts as if its id were empty; the page that shows it reads its transcript again. */
const idOf = (row: Row): string => factsOrUndefined(row, true)?.header.id ?? "";

/**
 * Newest first; equal times (to the millisecond a client sees) by id, then
 * path, so the order is total. Only a tie decodes a record's facts.
 */
export function newestFirst(a: Row, b: Row): number {
  const x = updatedMsOf(a);
  const y = updatedMsOf(b);
  if (x !== y) return y - x;
  if (a === b) return 0;
  const p = idOf(a);
  const q = idOf(b);
  if (p !== q) return p < q ? -1 : 1;
  const s = pathOf(a);
  const t = pathOf(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

/** A response may take 1 MiB; this much of it is left for the envelope (id, nextCursor, framing). */
export const ENVELOPE_RESERVE = 4 * 1024;
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** UTF-8 bytes the serialized `threads` array may take. */
export const THREADS_BUDGET = MAX_RESPONSE_BYTES - ENVELOPE_RESERVE;

/** The title a summary shows: the thread's name when one was set, else its first message's. */
export function titleOf({ title, name }: TranscriptFacts): string {
  return name === undefined ? (title ?? "") : boundText(name, TITLE_MAX);
}

/** A row's summary; its facts must decode (see factsOf). */
export function summaryOf(row: Row, archived: boolean): StoredThreadSummary {
  const facts = factsOf(row);
  const { header, name, workspace } = facts;
  return {
    id: header.id,
    title: titleOf(facts),
    ...(name === undefined ? {} : { name }),
    cwd: header.cwd,
    createdAt: header.createdAt,
    updatedAt: new Date(updatedMsOf(row)).toISOString(),
    ...(header.forkedFromId === undefined ? {} : { forkedFromId: header.forkedFromId }),
    ...(header.parentThreadId === undefined ? {} : { parentThreadId: header.parentThreadId }),
    ...(header.parentCallId === undefined ? {} : { parentCallId: header.parentCallId }),
    workspaceMode: workspace?.mode ?? "local",
    ...(workspace === undefined ? {} : { workspace: { ...workspace } }),
    path: pathOf(row),
    archived,
  };
}

export interface Page {
  threads: StoredThreadSummary[];
  /** Where the next page starts, when rows remain. */
  next?: number;
}

/**
 * Up to `limit` summaries from `offset`, cut short when the serialized
 * array would pass THREADS_BUDGET; the rest goes to the next page. A page
 * always holds at least one summary (one is far below the budget), so a walk
 * always ends. `reread` holds the rows of this stretch whose records did not
 * decode: their transcripts as read again, or undefined for one that is no
 * longer a transcript (left out).
 */
export function pageOf(rows: readonly Row[], offset: number, limit: number, archived: boolean, reread: ReadonlyMap<Row, Row | undefined> = new Map()): Page {
  const threads: StoredThreadSummary[] = [];
  let bytes = 2;
  let at = offset;
  for (; at < rows.length && threads.length < limit; at++) {
    const row = reread.has(rows[at]!) ? reread.get(rows[at]!) : rows[at]!;
    if (row === undefined) continue;
    const summary = summaryOf(row, archived);
    const size = Buffer.byteLength(JSON.stringify(summary)) + (threads.length === 0 ? 0 : 1);
    if (threads.length > 0 && bytes + size > THREADS_BUDGET) break;
    threads.push(summary);
    bytes += size;
  }
  return at < rows.length ? { threads, next: at } : { threads };
}
