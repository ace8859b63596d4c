import { newestFirst } from "./page.js";
import { isRow, type IndexedFile, type Row } from "./record.js";

/** Changes the rows take in place; past this many they are sorted again. */
export const MAX_ROW_CHANGES = 64;

/** Where `row` is in `rows` (sorted newest first), or -1. */
function locate(rows: readonly Row[], row: Row): number {
  let at = insertionPoint(rows, row);
  for (; at < rows.length && newestFirst(rows[at]!, row) === 0; at++) if (rows[at] === row) return at;
  return -1;
}

/** The first place in `rows` (sorted newest first) that does not come before `row`. */
function insertionPoint(rows: readonly Row[], row: Row): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (newestFirst(rows[mid]!, row) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * A folder's transcripts newest first, the array its listings and their
 * snapshots share. An array once handed out never changes: a change makes
 * a new one, by moving the few records that changed (a binary search each)
 * when there are few, else by sorting again. A turn that writes one
 * transcript of 100,000 therefore costs a copy of the array, not a sort.
 */
export class SortedRows {
  private rows: readonly Row[] = [];
  private stale = true;
  /** Undefined when the next rows must be sorted whole. */
  private changes: Array<readonly [IndexedFile | undefined, IndexedFile | undefined]> | undefined;

  /** A record went from `before` to `after` (either absent for one added or removed). */
  changed(before: IndexedFile | undefined, after: IndexedFile | undefined): void {
    if (this.stale && this.changes === undefined) return;
    this.stale = true;
    if ((this.changes ??= []).length >= MAX_ROW_CHANGES) this.changes = undefined;
    else this.changes.push([before, after]);
  }

  /** Too much changed to follow: the next rows are sorted whole. */
  invalidate(): void {
    this.stale = true;
    this.changes = undefined;
  }

  /** No transcripts at all. */
  clear(): void {
    this.rows = [];
    this.stale = false;
    this.changes = undefined;
  }

  /** The rows of `files` as they now are. */
  current(files: ReadonlyMap<string, IndexedFile>): readonly Row[] {
    if (!this.stale) return this.rows;
    this.rows = (this.changes !== undefined ? this.patched(this.changes, files) : undefined) ?? sortedRows(files);
    this.stale = false;
    this.changes = undefined;
    return this.rows;
  }

  /** The rows with the changes applied, in a copy; undefined when a change does not fit (then they are sorted whole). */
  private patched(
    changes: ReadonlyArray<readonly [IndexedFile | undefined, IndexedFile | undefined]>,
    files: ReadonlyMap<string, IndexedFile>,
  ): Row[] | undefined {
    const rows = this.rows.slice();
    for (const [before, after] of changes) {
      if (before !== undefined && isRow(before)) {
        const at = locate(rows, before);
        if (at === -1) return undefined;
        rows.splice(at, 1);
      }
      if (after !== undefined && isRow(after) && files.get(after.name) === after) rows.splice(insertionPoint(rows, after), 0, after);
    }
    return rows;
  }
}

/** Every transcript of `files`, newest first. Shards are written newest first, so a loaded index sorts by merging runs. */
function sortedRows(files: ReadonlyMap<string, IndexedFile>): Row[] {
  const rows: Row[] = [];
  for (const file of files.values()) if (isRow(file)) rows.push(file);
  return rows.sort(newestFirst);
}
