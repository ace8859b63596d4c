import { readdirSync } from "node:fs";
import { sep } from "node:path";
import { ListingError } from "./errors.js";
import { FolderWatch } from "./folder-watch.js";
import { loadIndex, SHARD_RECORDS, isShardedIndex, type LoadedIndex } from "./index-file.js";
import { indexIdentities, readStamp, stampHolds } from "./index-stamp.js";
import { IndexWriter } from "./index-writer.js";
import { sameFile, sortOutHere, sortOutLooked, statQuietly, type Known, type SortedOut } from "./look.js";
import { changesBetween, type FolderChange } from "./changes.js";
import { BadRecord, factsOf, isRow, type IndexedFile, type Row } from "./record.js";
import { MAX_ROW_CHANGES, SortedRows } from "./rows.js";
import { lookInWorker, LookFailed, type FolderLook } from "./stat-worker.js";
import { scanAll, scanOne, type ScanDeps } from "./folder-scan.js";

export { MAX_OPEN_TRANSCRIPTS } from "./folder-scan.js";
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
 * serialized on every appended entry. Until then a new process that trusts
 * the index (index-stamp.ts) serves the transcript's older record; a crash
 * in between leaves it so under a stamp that still holds, which the full
 * look after that process's first page repairs.
 */
export const WRITTEN_FLUSH_MS = 2_000;

export interface FolderDeps extends ScanDeps {
  /** Transcripts per index shard; tests make shards small. */
  shardRecords?: number;
  /** From how many transcripts a full look runs on a worker; WORKER_LOOK_NAMES by default. */
  workerLookNames?: number;
  /** Whether a first refresh may answer from a stamped index alone (index-stamp.ts). */
  trustIndex?: boolean;
  /** What the full look after such a first page found the index had wrong. */
  onChanged?: (changes: readonly FolderChange[]) => void;
}

const errno = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;

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
  /**
   * "trusted": the records came from a stamped index and were served
   * before any look; "looked": a full look has checked them since they
   * were loaded. The index is stamped again only in either case.
   */
  private truth: "unknown" | "trusted" | "looked" = "unknown";
  /** The full look that follows a trusted first page, what starts it early, and what ends it. */
  private lookTimer: NodeJS.Immediate | undefined;
  private startLook: (() => void) | undefined;
  private backgroundLook: Promise<unknown> | undefined;
  private readonly closing = new AbortController();

  constructor(
    readonly dir: string,
    private readonly deps: FolderDeps,
  ) {
    this.prefix = dir.endsWith(sep) ? dir : dir + sep;
    this.writer = new IndexWriter(
      this.prefix,
      () => this.files,
      () => (this.replaceFile = false),
      () => this.truth !== "unknown" && this.written.size === 0,
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

  /** Reads the folder's index file the first time the folder is used; answers what it read then. */
  private loadOnce(): LoadedIndex | undefined {
    if (this.loaded) return undefined;
    const loaded = loadIndex(this.prefix);
    this.files = loaded.files;
    this.replaceFile = loaded.replace;
    this.writer.loaded(loaded);
    this.loaded = true;
    this.rows.invalidate();
    return loaded;
  }

  /**
   * A first refresh over an index whose stamp holds (index-stamp.ts) takes
   * its records as they are, statting no transcript; the full look follows
   * once the page is on its way, and reports through `onChanged` what the
   * index had wrong (a transcript edited by another program, or written by
   * a process that died before its index caught up). False when the index
   * cannot be trusted: the refresh then looks at the folder as always.
   */
  private loadTrusted(): boolean {
    if (!this.deps.trustIndex || this.loaded) return false;
    // A few stats first: an index that cannot be trusted is read while a worker looks at the folder, as always.
    const stamp = readStamp(this.prefix);
    if (stamp === undefined || !stampHolds(this.prefix, stamp, indexIdentities(this.prefix, stamp.shards))) return false;
    const loaded = this.loadOnce()!;
    // The files read must be the ones the stamp names, and the folder still unchanged after reading them.
    if (loaded.replace || loaded.shards !== stamp.shards || !stampHolds(this.prefix, stamp, loaded.identities)) return false;
    this.truth = "trusted";
    // After this turn of the event loop: the page is sent first.
    const turn = new Promise<void>((resolve) => {
      this.startLook = resolve;
      this.lookTimer = setImmediate(resolve);
    });
    // A look that fails is no one's error: the next listing looks again.
    this.backgroundLook = turn.then(() => this.refresh(this.closing.signal)).catch(() => undefined);
    return true;
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
    const file = stats?.isFile() ? await this.deps.limiter.run(() => scanOne(this.prefix, this.deps, { at: -1, name, stats, previous }, counted)) : undefined;
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
    await this.backgroundLook;
    await this.writer.flush();
  }

  private async refreshNow(signal: AbortSignal | undefined): Promise<readonly Row[]> {
    signal?.throwIfAborted();
    if (this.loadTrusted()) return this.rows.current(this.files);
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
    const served = this.truth === "trusted" ? this.files : undefined;
    const rows = await this.fullLook(signal, look);
    this.lastFullLook = lookStarted;
    this.truth = "looked";
    if (served !== undefined && served !== this.files) this.report(served);
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
        await scanAll(this.prefix, this.deps, changed, known, signal);
      } finally {
        // Even a scan cut short keeps what it read; what it did not read is absent, so read next time.
        if (removed || changed.length > MAX_ROW_CHANGES) this.rows.invalidate();
        else for (const item of changed) this.rows.changed(item.previous, known[item.at]);
        this.commit(names, known);
      }
    } else {
      this.lastNames = names;
      this.lastKnown = known;
      // An index without a stamp that holds (one an older version wrote, say) is stamped now that a look checked it.
      if (this.replaceFile || !this.stampHolds()) this.writer.schedule();
    }
    return this.rows.current(this.files);
  }

  /** Stats (and reads, when changed) only the names file events reported since the last refresh. */
  private async refreshChanged(names: ReadonlySet<string>): Promise<readonly Row[]> {
    for (const name of names) if (name.endsWith(".jsonl") && !name.includes(sep)) await this.recheck(name);
    return this.rows.current(this.files);
  }

  /**
   * At close, after the flush: this process's own session locks came and
   * went beside the transcripts since the index was last written, which
   * moved the folder's times. When the folder still holds exactly the
   * transcripts the records name, the index is stamped again, so that the
   * next process can answer from it.
   */
  async stampOnClose(): Promise<void> {
    if (this.truth === "unknown" || this.written.size > 0 || this.stampHolds()) return;
    let names: string[] | undefined;
    try {
      names = this.transcriptNames();
    } catch {
      return;
    }
    if (names === undefined || names.length !== this.files.size || !names.every((name) => this.files.has(name))) return;
    this.writer.schedule();
    await this.writer.flush();
  }

  private stampHolds(): boolean {
    const stamp = readStamp(this.prefix);
    return stamp !== undefined && stampHolds(this.prefix, stamp, indexIdentities(this.prefix, stamp.shards));
  }

  /** What the look after a trusted first page found changed, for the engine to tell; the folder's own changes are not told. */
  private report(served: ReadonlyMap<string, IndexedFile>): void {
    // A server shutting down tells no one.
    if (this.closing.signal.aborted) return;
    const changes = changesBetween(served, this.files);
    if (changes.length > 0) this.deps.onChanged?.(changes);
  }

  /** Stops watching the folder and the look after a trusted first page (the engine is going away). */
  close(): void {
    this.closing.abort();
    clearImmediate(this.lookTimer);
    // A look not started yet starts now, and stops at once.
    this.startLook?.();
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
}
