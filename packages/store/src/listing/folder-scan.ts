import type { FileHandle } from "node:fs/promises";
import { ListingError } from "./errors.js";
import type { Limiter } from "./limiter.js";
import type { Changed } from "./look.js";
import { factsOrUndefined, isRow, StoredFacts, type IndexedFile } from "./record.js";
import { NotATranscript } from "./transcript-pass.js";
import { SCAN_CHUNK, scanTranscript } from "./transcript-scan.js";
import type { ListingCounters, OpenTranscript } from "./types.js";

/** Transcripts a listing holds open at once, whatever the number of folders and concurrent listings. */
export const MAX_OPEN_TRANSCRIPTS = 64;

/** What reading a folder's transcripts needs. */
export interface ScanDeps {
  openTranscript: OpenTranscript;
  counters: ListingCounters;
  /** Shared by every folder of a listing engine. */
  limiter: Limiter;
}

const errno = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;
/** A transcript that vanished or that we may not read is left out of this listing and tried again the next time. */
const passOver = (error: unknown) => ["ENOENT", "EACCES", "EPERM"].includes(errno(error) ?? "");

/** Reads the changed files into `known`, at most MAX_OPEN_TRANSCRIPTS at once. */
export async function scanAll(
  prefix: string,
  deps: ScanDeps,
  changed: readonly Changed[],
  known: Array<IndexedFile | undefined>,
  signal: AbortSignal | undefined,
): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    // One read buffer per lane, for every transcript it reads: a cold look at 50,000 files allocates 64, not 50,000.
    const scratch = Buffer.allocUnsafe(SCAN_CHUNK);
    while (next < changed.length && failure === undefined) {
      const item = changed[next++]!;
      try {
        known[item.at] = await deps.limiter.run(() => {
          signal?.throwIfAborted();
          return scanOne(prefix, deps, item, true, scratch);
        });
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(MAX_OPEN_TRANSCRIPTS, changed.length) }, worker));
  if (failure !== undefined) throw failure;
}

/** Reads one transcript (from where its record left off, when it only grew); undefined when it went or may not be read. */
export async function scanOne(
  prefix: string,
  deps: ScanDeps,
  { name, stats, previous }: Changed,
  counted = true,
  scratch?: Buffer,
): Promise<IndexedFile | undefined> {
  const path = prefix + name;
  const identity = { name, dir: prefix, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
  let handle: FileHandle;
  try {
    handle = await deps.openTranscript(path);
  } catch (error) {
    if (passOver(error)) return undefined;
    throw new ListingError("io", `could not open ${path}: ${(error as Error).message}`, { path, cause: error });
  }
  const { counters } = deps;
  if (counted) counters.listingFilesOpened++;
  try {
    // Facts that do not decode mean a read from the start.
    const resume = previous?.ino === stats.ino && isRow(previous) ? factsOrUndefined(previous) : undefined;
    const facts = await scanTranscript(handle, path, stats.size, resume, (bytes) => (counted ? (counters.listingBytesScanned += bytes) : undefined), scratch);
    // Kept encoded, as a record read from the index is: a page decodes it again in a few microseconds.
    return { ...identity, facts: StoredFacts.of(facts, name, stats.size) };
  } catch (error) {
    if (error instanceof NotATranscript) return identity;
    if (passOver(error)) return undefined;
    throw new ListingError("io", `could not read ${path}: ${(error as Error).message}`, { path, cause: error });
  } finally {
    await handle.close();
  }
}
