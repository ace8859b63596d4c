import { randomBytes } from "node:crypto";
import { ListingError } from "./errors.js";

export const MAX_SNAPSHOTS = 32;
export const SNAPSHOT_TTL_MS = 5 * 60 * 1000;

interface Snapshot<T> {
  rows: readonly T[];
  filter: string;
  expiresAt: number;
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
  /** In order of last use, oldest first. */
  private readonly snapshots = new Map<string, Snapshot<T>>();

  constructor(private readonly now: () => number) {}

  /** Keeps `rows`; answers the snapshot's id. */
  save(rows: readonly T[], filter: string): string {
    this.expire();
    while (this.snapshots.size >= MAX_SNAPSHOTS) this.snapshots.delete(this.snapshots.keys().next().value!);
    const id = randomBytes(12).toString("base64url");
    this.snapshots.set(id, { rows, filter, expiresAt: this.now() + SNAPSHOT_TTL_MS });
    return id;
  }

  /** The snapshot a cursor names, renewed; `filter` must be the one it was made for. */
  resume(cursor: string, filter: string): Continuation<T> {
    this.expire();
    const { id, offset } = decodeCursor(cursor);
    const snapshot = this.snapshots.get(id);
    if (snapshot === undefined) throw new ListingError("invalidCursor", "the cursor has expired or was evicted; list again from the first page", { problem: "unknown" });
    if (snapshot.filter !== filter) throw new ListingError("invalidCursor", "the cursor was made for other filters (cwd, archived, search)", { problem: "filterMismatch" });
    if (offset > snapshot.rows.length) throw new ListingError("invalidCursor", "the cursor is malformed", { problem: "malformed" });
    this.snapshots.delete(id);
    snapshot.expiresAt = this.now() + SNAPSHOT_TTL_MS;
    this.snapshots.set(id, snapshot);
    return { id, rows: snapshot.rows, offset };
  }

  /** The cursor of a later page of a kept snapshot. */
  cursorAt(id: string, offset: number): string {
    return encodeCursor(id, offset);
  }

  private expire(): void {
    const now = this.now();
    for (const [id, snapshot] of this.snapshots) if (snapshot.expiresAt <= now) this.snapshots.delete(id);
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
