import { readdirSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { join, sep } from "node:path";
import { ListingError } from "./errors.js";
import { FolderWatch } from "./folder-watch.js";
import { loadIndex, SHARD_RECORDS, isShardedIndex } from "./index-file.js";
import { IndexWriter } from "./index-writer.js";
import type { Limiter } from "./limiter.js";
import { sameFile, sortOutHere, sortOutLooked, statQuietly, type Changed, type Known, type SortedOut } from "./look.js";
import { BadRecord, factsOf, factsOrUndefined, isRow, StoredFacts, type IndexedFile, type Row } from "./record.js";
import { MAX_ROW_CHANGES, SortedRows } from "./rows.js";
import { lookInWorker, LookFailed, type FolderLook } from "./stat-worker.js";
import { NotATranscript } from "./transcript-pass.js";
import { SCAN_CHUNK, scanTranscript } from "./transcript-scan.js";
import type { ListingCounters, OpenTranscript } from "./types.js";

/** Transcripts a listing holds open at once, whatever the number of folders and concurrent listings. */
export const MAX_OPEN_TRANSCRIPTS = 64;
/**
 * Between two full looks (readdir and a stat of every transcript), a folder
 * with a working file watch stats only the names its events gave. A full
 * look at least this often bounds what a lost event could hide.
 */
export const FULL_LOOK_MS = 15_000;
/**
 * How long after its owner writes a transcript its record is brought up to
 * date and the index file rewritten: every transcript written meanwhile
 * joins the same rewrite, so a busy folder of 10,000 threads is not
 * serialized on every appended entry.
 */
export const WRITTEN_FLUSH_MS = 2_000;

export interface FolderDeps {
  openTranscript: OpenTranscript;
  /** Transcripts per index shard; tests make shards small. */
  shardRecords?: number;
  /** From how many transcripts a full look runs on a worker; WORKER_LOOK_NAMES by default. */
  workerLookNames?: number;
  counters: ListingCounters;
  /** Shared by every folder of a listing engine. */
  limiter: Limiter;
}

const errno = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;
/** A transcript that vanished or that we may not read is left out of this listing and tried again the next time. */
const passOver = (error: unknown) => ["ENOENT", "EACCES", "EPERM"].includes(errno(error) ?? "");

/**
 * A folder with at least this many transcripts is listed and statted on a
 * worker thread (see stat-worker.ts); below it, starting a worker costs
 * more than the stats.
 */
export const WORKER_LOOK_NAMES = SHARD_RECORDS;

/**
 * One sessions folder and its `.thread-index.json`: which transcripts it
 * holds and what they say. A refresh stats every transcript and reads only
 * those whose size, mtime or inode changed; the index file is rewritten in
 * the background when something did.
 */
export class FolderIndex {
  private files = new Map<string, IndexedFile>();
  /** The listable files newest first, made again only after a change. */
  private readonly rows = new SortedRows();
  private readonly prefix: string;
  /** The names of the last refresh, in readdir order, and what the index knew of each. */
  private lastNames: readonly string[] = [];
  private lastKnown: ReadonlyArray<IndexedFile | undefined> = [];
  private loaded = false;
  private replaceFile = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly writer: IndexWriter;
  private watch: FolderWatch | undefined;
  private lastFullLook = -Infinity;
  /** Transcripts this process wrote whose records are not up to date yet. */
  private written = new Set<string>();
  private writtenTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly dir: string,
    private readonly deps: FolderDeps,
  ) {
    this.prefix = dir.endsWith(sep) ? dir : dir + sep;
    this.writer = new IndexWriter(
      this.prefix,
      () => this.files,
      () => (this.replaceFile = false),
      deps.shardRecords,
    );
  }

  /** The folder's transcripts, up to date, newest first. Refreshes of one folder run one after the other. */
  refresh(signal?: AbortSignal): Promise<readonly Row[]> {
    const run = this.queue.then(() => this.refreshNow(signal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * One transcript of the folder, up to date: its stat is checked and, if it
   * changed since the index saw it, it alone is read again; so is one whose
   * record does not decode (a damaged index). Undefined when the file is not
   * a listable transcript.
   */
  rowOf(name: string): Promise<Row | undefined> {
    const run = this.queue.then(() => this.rowNow(name));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Reads the folder's index file the first time the folder is used. */
  private loadOnce(): void {
    if (this.loaded) return;
    const loaded = loadIndex(this.prefix);
    this.files = loaded.files;
    this.replaceFile = loaded.replace;
    this.writer.loaded(loaded);
    this.loaded = true;
    this.rows.invalidate();
  }

  private async rowNow(name: string): Promise<Row | undefined> {
    this.loadOnce();
    const file = await this.recheck(name);
    if (file === undefined || !isRow(file)) return undefined;
    try {
      factsOf(file);
      return file;
    } catch (error) {
      if (!(error instanceof BadRecord)) throw error;
      this.forgetRecord(name, file);
      const read = await this.recheck(name);
      return read !== undefined && isRow(read) ? read : undefined;
    }
  }

  /** Drops a record the index got wrong, so that its transcript is read again. */
  private forgetRecord(name: string, file: IndexedFile): void {
    this.files.delete(name);
    this.rows.changed(file, undefined);
    this.lastNames = [];
    this.lastKnown = [];
  }

  /**
   * Brings one name's record up to date: a stat, a read when it changed,
   * the record dropped when the file went. Returns the record as it now is.
   */
  private async recheck(name: string, counted = true): Promise<IndexedFile | undefined> {
    const stats = statQuietly(this.prefix + name);
    const previous = this.files.get(name);
    if (stats?.isFile() && sameFile(previous, stats)) return previous;
    const file = stats?.isFile() ? await this.deps.limiter.run(() => this.scanOne({ at: -1, name, stats, previous }, counted)) : undefined;
    if (file === undefined) this.writer.forget(name);
    if (file === undefined && previous === undefined) return undefined;
    if (file === undefined) this.files.delete(name);
    else this.files.set(name, file);
    this.rows.changed(previous, file);
    // The readdir-order shortcut of the next full look would meet stale records: it looks names up instead.
    this.lastNames = [];
    this.lastKnown = [];
    this.writer.schedule();
    return file;
  }

  /**
   * The owner of a transcript of this folder wrote to it. A little later
   * its record is brought up to date (a stat, and a read of what was
   * appended) and the index file rewritten, so that a restarted server
   * lists without reading what this one wrote. The stat check stays the
   * truth: a record that missed a write (a crash before the rewrite) only
   * makes its transcript be read again.
   */
  noteWritten(name: string): void {
    this.written.add(name);
    this.writtenTimer ??= setTimeout(() => void this.updateWritten().catch(() => undefined), WRITTEN_FLUSH_MS).unref();
  }

  /** Brings the records of written transcripts up to date; not a listing, so the listing counters do not move. */
  private updateWritten(): Promise<void> {
    clearTimeout(this.writtenTimer);
    this.writtenTimer = undefined;
    const names = [...this.written];
    this.written = new Set();
    const run = this.queue.then(async () => {
      this.loadOnce();
      // One transcript that cannot be read keeps its stale record; the others still catch up.
      for (const name of names) await this.recheck(name, false).catch(() => undefined);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Resolves once the index file holds what the last refresh found and what was written since (or failed to be written). */
  async flush(): Promise<void> {
    if (this.written.size > 0) await this.updateWritten().catch(() => undefined);
    await this.writer.flush();
  }

  private async refreshNow(signal: AbortSignal | undefined): Promise<readonly Row[]> {
    signal?.throwIfAborted();
    // A big folder's first look runs on a worker while the index is read here.
    let look = this.loaded || !isShardedIndex(this.prefix) ? undefined : this.lookInWorker(signal);
    // Awaited by the full look; a refresh that returns before must not leave a rejection unhandled.
    look?.catch(() => undefined);
    this.loadOnce();
    if (this.watch?.usable && performance.now() - this.lastFullLook < FULL_LOOK_MS) {
      const changed = await this.watch.changes();
      if (changed) return this.refreshChanged(changed);
    }
    if (look === undefined && this.files.size >= (this.deps.workerLookNames ?? WORKER_LOOK_NAMES)) look = this.lookInWorker(signal);
    // Events from here on are the next refresh's; this one looks at everything.
    if (!this.watch?.usable) this.watch = FolderWatch.start(this.dir);
    this.watch?.reset();
    const lookStarted = performance.now();
    // Only a look that went through to the end lets the next refreshes trust the events.
    this.lastFullLook = -Infinity;
    const rows = await this.fullLook(signal, look);
    this.lastFullLook = lookStarted;
    return rows;
  }

  /** The worker's look at the folder; undefined when the worker could not do it (the look is then made here). */
  private lookInWorker(signal: AbortSignal | undefined): Promise<FolderLook | LookFailed | undefined> {
    // A worker that cannot start or dies is no reason to fail the listing: the look is then made here.
    return lookInWorker(this.prefix, signal).catch((error: unknown) => {
      if (error instanceof LookFailed) return error;
      if (signal?.aborted) throw error;
      return undefined;
    });
  }

  /** The folder's names and what the index knows of each, from the worker's look or one made here; undefined when there is no folder. */
  private async sortOutFolder(look: Promise<FolderLook | LookFailed | undefined> | undefined, signal: AbortSignal | undefined): Promise<SortedOut | undefined> {
    const looked = await look;
    if (looked instanceof LookFailed) {
      if (looked.code === "ENOENT" || looked.code === "ENOTDIR") return undefined;
      throw new ListingError("io", `could not read the sessions folder ${this.dir}: ${looked.message}`, { path: this.dir });
    }
    if (looked !== undefined) return sortOutLooked(looked, this.known());
    const names = this.transcriptNames();
    return names === undefined ? undefined : await sortOutHere(this.prefix, names, this.known(), signal);
  }

  private known(): Known {
    return { lastNames: this.lastNames, lastKnown: this.lastKnown, files: this.files };
  }

  private async fullLook(signal: AbortSignal | undefined, look: Promise<FolderLook | LookFailed | undefined> | undefined): Promise<readonly Row[]> {
    const sorted = await this.sortOutFolder(look, signal);
    if (sorted === undefined) {
      this.writer.keepOnly([]);
      this.files = new Map();
      this.rows.clear();
      this.lastNames = [];
      this.lastKnown = [];
      return this.rows.current(this.files);
    }
    const { names, known, changed, kept } = sorted;
    if (changed.length > 0 || kept !== this.files.size) {
      // Only changes, no file gone: the rows can take them in place.
      const removed = kept + changed.filter((item) => item.previous !== undefined).length !== this.files.size;
      try {
        await this.scanAll(changed, known, signal);
      } finally {
        // Even a scan cut short keeps what it read; what it did not read is absent, so read next time.
        if (removed || changed.length > MAX_ROW_CHANGES) this.rows.invalidate();
        else for (const item of changed) this.rows.changed(item.previous, known[item.at]);
        this.commit(names, known);
      }
    } else {
      this.lastNames = names;
      this.lastKnown = known;
      if (this.replaceFile) this.writer.schedule();
    }
    return this.rows.current(this.files);
  }

  /** Stats (and reads, when changed) only the names file events reported since the last refresh. */
  private async refreshChanged(names: ReadonlySet<string>): Promise<readonly Row[]> {
    for (const name of names) if (name.endsWith(".jsonl") && !name.includes(sep)) await this.recheck(name);
    return this.rows.current(this.files);
  }

  /** Stops watching the folder (the engine is going away). */
  close(): void {
    this.watch?.close();
    this.watch = undefined;
  }

  private commit(names: readonly string[], known: ReadonlyArray<IndexedFile | undefined>): void {
    const files = new Map<string, IndexedFile>();
    for (let i = 0; i < names.length; i++) if (known[i] !== undefined) files.set(known[i]!.name, known[i]!);
    this.files = files;
    this.writer.keepOnly(names);
    this.lastNames = names;
    this.lastKnown = known;
    this.writer.schedule();
  }

  /** Names ending in `.jsonl`, or undefined when the folder does not exist. */
  private transcriptNames(): string[] | undefined {
    try {
      // Sync: several times faster than through the thread pool, and one call even for a big folder.
      return readdirSync(this.dir).filter((name) => name.endsWith(".jsonl"));
    } catch (error) {
      if (errno(error) === "ENOENT" || errno(error) === "ENOTDIR") return undefined;
      throw new ListingError("io", `could not read the sessions folder ${this.dir}: ${(error as Error).message}`, { path: this.dir, cause: error });
    }
  }

  /** Reads the changed files into `known`, at most MAX_OPEN_TRANSCRIPTS at once. */
  private async scanAll(changed: readonly Changed[], known: Array<IndexedFile | undefined>, signal: AbortSignal | undefined): Promise<void> {
    let next = 0;
    let failure: unknown;
    const worker = async () => {
      // One read buffer per lane, for every transcript it reads: a cold look at 50,000 files allocates 64, not 50,000.
      const scratch = Buffer.allocUnsafe(SCAN_CHUNK);
      while (next < changed.length && failure === undefined) {
        const item = changed[next++]!;
        try {
          known[item.at] = await this.deps.limiter.run(() => {
            signal?.throwIfAborted();
            return this.scanOne(item, true, scratch);
          });
        } catch (error) {
          failure ??= error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(MAX_OPEN_TRANSCRIPTS, changed.length) }, worker));
    if (failure !== undefined) throw failure;
  }

  private async scanOne({ name, stats, previous }: Changed, counted = true, scratch?: Buffer): Promise<IndexedFile | undefined> {
    const path = join(this.dir, name);
    const identity = { name, dir: this.prefix, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
    let handle: FileHandle;
    try {
      handle = await this.deps.openTranscript(path);
    } catch (error) {
      if (passOver(error)) return undefined;
      throw new ListingError("io", `could not open ${path}: ${(error as Error).message}`, { path, cause: error });
    }
    const { counters } = this.deps;
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
}
