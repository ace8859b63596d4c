import { statSync, type Stats } from "node:fs";
import { nextTurn } from "@knightcode/system/util/next-turn";
import type { IndexedFile } from "./record.js";
import type { FolderLook } from "./stat-worker.js";

/** Stats between two yields to the event loop: a big folder must not stall the server's other work. */
const STATS_PER_TURN = 1000;

/** What a listing compares of a file's stat. */
export interface FileStat {
  size: number;
  mtimeMs: number;
  ino: number;
}

/** A file whose stat no longer matches the index: read it (again). */
export interface Changed {
  /** Its place in the folder's names. */
  at: number;
  name: string;
  stats: FileStat;
  previous: IndexedFile | undefined;
}

/** A look at a folder held against what the index knows: `known[i]` is names[i]'s record when its stat still matches. */
export interface SortedOut {
  names: string[];
  known: Array<IndexedFile | undefined>;
  changed: Changed[];
  /** How many names kept their record. */
  kept: number;
}

/** What the folder knew at its last look: the names in readdir order, their records, and every record by name. */
export interface Known {
  lastNames: readonly string[];
  lastKnown: ReadonlyArray<IndexedFile | undefined>;
  files: ReadonlyMap<string, IndexedFile>;
}

export function statQuietly(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export function sameFile(known: IndexedFile | undefined, stats: FileStat): known is IndexedFile {
  return known !== undefined && known.size === stats.size && known.mtimeMs === stats.mtimeMs && known.ino === stats.ino;
}

/**
 * Holds one name's stat against what is known. In a folder that did not
 * change, readdir gives the names in the same order as last time, so the
 * records are found without hashing names; a kept record's own copy of
 * the name replaces readdir's, so memory holds one string per name.
 */
function sortOne(out: SortedOut, at: number, stats: FileStat, known: Known): void {
  const name = out.names[at]!;
  const previous = known.lastNames[at] === name ? known.lastKnown[at] : known.files.get(name);
  if (sameFile(previous, stats)) {
    out.known[at] = previous;
    out.names[at] = previous.name;
    out.kept++;
  } else {
    out.changed.push({ at, name, stats: { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino }, previous });
  }
}

const emptyOut = (names: string[]): SortedOut => ({ names, known: new Array<IndexedFile | undefined>(names.length), changed: [], kept: 0 });

/** Stats every name here, in batches that let the event loop breathe. */
export async function sortOutHere(dir: string, names: string[], known: Known, signal: AbortSignal | undefined): Promise<SortedOut> {
  const out = emptyOut(names);
  for (let i = 0; i < names.length; i++) {
    // Sync stats are several times faster than the thread pool's; batches keep the loop responsive.
    if (i > 0 && i % STATS_PER_TURN === 0) {
      await nextTurn();
      signal?.throwIfAborted();
    }
    const stats = statQuietly(dir + names[i]);
    if (stats?.isFile()) sortOne(out, i, stats, known);
  }
  return out;
}

/** The same over a worker's look: its stats are taken, so no system call and no batches. */
export function sortOutLooked({ names, stats }: FolderLook, known: Known): SortedOut {
  const out = emptyOut(names);
  const stat = { size: 0, mtimeMs: 0, ino: 0 };
  for (let i = 0; i < names.length; i++) {
    stat.size = stats[3 * i]!;
    if (stat.size < 0) continue;
    stat.mtimeMs = stats[3 * i + 1]!;
    stat.ino = stats[3 * i + 2]!;
    sortOne(out, i, stat, known);
  }
  return out;
}
