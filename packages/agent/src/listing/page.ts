import { TITLE_MAX, boundText } from "./title.js";
import type { TranscriptFacts } from "./transcript-scan.js";
import type { ThreadSummary } from "./types.js";

/** A listed transcript; snapshots hold these (never changed once made) and make summaries only for the pages asked for. */
export interface Row {
  readonly facts: TranscriptFacts;
  readonly path: string;
  /** The file's mtime, whole milliseconds. */
  readonly updatedMs: number;
}

/** Newest first; equal times (to the millisecond a client sees) by id, then path, so the order is total. */
export function newestFirst(a: Row, b: Row): number {
  if (a.updatedMs !== b.updatedMs) return b.updatedMs - a.updatedMs;
  const x = a.facts.header.id;
  const y = b.facts.header.id;
  if (x !== y) return x < y ? -1 : 1;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** A response may take 1 MiB; this much of it is left for the envelope (id, nextCursor, framing). */
export const ENVELOPE_RESERVE = 4 * 1024;
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** UTF-8 bytes the serialized `threads` array may take. */
export const THREADS_BUDGET = MAX_RESPONSE_BYTES - ENVELOPE_RESERVE;

export function summaryOf(row: Row, archived: boolean): ThreadSummary {
  const { header, title, name, workspace } = row.facts;
  return {
    id: header.id,
    title: name === undefined ? (title ?? "") : boundText(name, TITLE_MAX),
    ...(name === undefined ? {} : { name }),
    cwd: header.cwd,
    createdAt: header.createdAt,
    updatedAt: new Date(row.updatedMs).toISOString(),
    ...(header.forkedFromId === undefined ? {} : { forkedFromId: header.forkedFromId }),
    workspaceMode: workspace?.mode ?? "local",
    ...(workspace === undefined ? {} : { workspace: { ...workspace } }),
    path: row.path,
    archived,
  };
}

export interface Page {
  threads: ThreadSummary[];
  /** Where the next page starts, when rows remain. */
  next?: number;
}

/**
 * Up to `limit` summaries from `offset`, cut short when the serialized
 * array would pass THREADS_BUDGET; the rest goes to the next page. A page
 * always holds at least one summary (one is far below the budget), so a walk
 * always ends.
 */
export function pageOf(rows: readonly Row[], offset: number, limit: number, archived: boolean): Page {
  const threads: ThreadSummary[] = [];
  let bytes = 2;
  let at = offset;
  for (; at < rows.length && threads.length < limit; at++) {
    const summary = summaryOf(rows[at]!, archived);
    const size = Buffer.byteLength(JSON.stringify(summary)) + (threads.length === 0 ? 0 : 1);
    if (threads.length > 0 && bytes + size > THREADS_BUDGET) break;
    threads.push(summary);
    bytes += size;
  }
  return at < rows.length ? { threads, next: at } : { threads };
}
