import { randomBytes } from "node:crypto";
import { ListingError } from "./errors.js";

export const MAX_SNAPSHOTS = 32;
export const SNAPSHOT_TTL_MS = 5 * 60 * 1000;

interface Snapshot<T> {
  rows: readonly T[];
  filter: string;
}

export interface Continuation<T> {
  id: string;
  rows: readonly T[];
  offset: number;
}

/**
 * The results of first pages, kept for their continuations so that later
 * pages come from the same list whatever changed on disk meanwhile. Each use
 * renews a snapshot's lease; the least recently used goes first when full.
 * A Map in order of last use is the whole cache: 32 entries need no more,
 * and the listing's cold path loads no cache library.
 */
export class SnapshotStore<T> {
  /** Oldest use first: a renewed snapshot is put back at the end. */
  private readonly snapshots = new Map<string, Snapshot<T> & { usedAt: number }>();

  constructor(private readonly now: () => number) {}

  /** Keeps `rows`; answers the snapshot's id. */
  save(rows: readonly T[], filter: string): string {
    this.purgeStale();
    const id = randomBytes(12).toString("base64url");
    this.snapshots.set(id, { rows, filter, usedAt: this.now() });
    for (const oldest of this.snapshots.keys()) {
      if (this.snapshots.size <= MAX_SNAPSHOTS) break;
      this.snapshots.delete(oldest);
    }
    return id;
  }

  /** The snapshot a cursor names, renewed; `filter` must be the one it was made for. */
  resume(cursor: string, filter: string): Continuation<T> {
    this.purgeStale();
    const { id, offset } = decodeCursor(cursor);
    const snapshot = this.snapshots.get(id);
    if (snapshot === undefined)
      throw new ListingError("invalidCursor", "the cursor has expired or was evicted; list again from the first page", { problem: "unknown" });
    if (snapshot.filter !== filter)
      throw new ListingError("invalidCursor", "the cursor was made for other filters (cwd, archived, search, parentThreadId)", { problem: "filterMismatch" });
    if (offset > snapshot.rows.length) throw new ListingError("invalidCursor", "the cursor is malformed", { problem: "malformed" });
    this.snapshots.delete(id);
    this.snapshots.set(id, { ...snapshot, usedAt: this.now() });
    return { id, rows: snapshot.rows, offset };
  }

  /** A snapshot is gone once SNAPSHOT_TTL_MS passed since its last use; expired ones go at every use, so that a quiet server does not hold old lists. */
  private purgeStale(): void {
    const now = this.now();
    for (const [id, snapshot] of this.snapshots) if (now - snapshot.usedAt >= SNAPSHOT_TTL_MS) this.snapshots.delete(id);
  }

  /** The cursor of a later page of a kept snapshot. */
  cursorAt(id: string, offset: number): string {
    return encodeCursor(id, offset);
  }
}

/** Opaque to clients: a snapshot id and an offset in it. */
function encodeCursor(id: string, offset: number): string {
  return Buffer.from(JSON.stringify({ s: id, o: offset })).toString("base64url");
}

function decodeCursor(cursor: string): { id: string; offset: number } {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    value = undefined;
  }
  const { s, o } = (value ?? {}) as { s?: unknown; o?: unknown };
  if (typeof s !== "string" || !Number.isSafeInteger(o) || (o as number) < 1) {
    throw new ListingError("invalidCursor", "the cursor is malformed", { problem: "malformed" });
  }
  return { id: s, offset: o as number };
}
