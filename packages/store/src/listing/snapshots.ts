import { randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";
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
 */
export class SnapshotStore<T> {
  private readonly snapshots: LRUCache<string, Snapshot<T>>;

  constructor(now: () => number) {
    this.snapshots = new LRUCache<string, Snapshot<T>>({
      max: MAX_SNAPSHOTS,
      // lru-cache counts an entry stale once its age is past the ttl; a snapshot is gone when its age reaches it.
      ttl: SNAPSHOT_TTL_MS - 1,
      updateAgeOnGet: true,
      // Every look asks the clock: lru-cache would otherwise reuse a reading for a while, behind a test's clock.
      ttlResolution: 0,
      perf: { now },
    });
  }

  /** Keeps `rows`; answers the snapshot's id. */
  save(rows: readonly T[], filter: string): string {
    // Expired rows go at every use, so that a quiet server does not hold old lists until they are evicted.
    this.snapshots.purgeStale();
    const id = randomBytes(12).toString("base64url");
    this.snapshots.set(id, { rows, filter });
    return id;
  }

  /** The snapshot a cursor names, renewed; `filter` must be the one it was made for. */
  resume(cursor: string, filter: string): Continuation<T> {
    this.snapshots.purgeStale();
    const { id, offset } = decodeCursor(cursor);
    const snapshot = this.snapshots.peek(id);
    if (snapshot === undefined)
      throw new ListingError("invalidCursor", "the cursor has expired or was evicted; list again from the first page", { problem: "unknown" });
    if (snapshot.filter !== filter)
      throw new ListingError("invalidCursor", "the cursor was made for other filters (cwd, archived, search, parentThreadId)", { problem: "filterMismatch" });
    if (offset > snapshot.rows.length) throw new ListingError("invalidCursor", "the cursor is malformed", { problem: "malformed" });
    this.snapshots.get(id);
    return { id, rows: snapshot.rows, offset };
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
