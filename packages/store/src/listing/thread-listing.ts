import { open } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { ARCHIVED_FOLDER } from "../session/archive.js";
import { ListingError } from "./errors.js";
import { FolderIndex, MAX_OPEN_TRANSCRIPTS, type FolderDeps } from "./folder.js";
import { Limiter } from "./limiter.js";
import { newestFirst, pageOf, summaryOf, titleOf } from "./page.js";
import { BadRecord, factsOf, factsOrUndefined, pathOf, StoredFacts, type Row } from "./record.js";
import type { TranscriptFacts } from "./transcript-scan.js";
import { SnapshotStore } from "./snapshots.js";
import type { FolderChange } from "./changes.js";
import type { ListingChange, ListingCounters, ListRequest, ListResult, OpenTranscript, ThreadListingOptions, StoredThreadSummary } from "./types.js";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ListingError("invalidParams", `limit must be an integer from 1 to ${MAX_LIMIT}, not ${String(limit)}`);
  }
  return limit;
}

/**
 * The engine behind thread/list, one per server: folder indexes, the open
 * file budget and the continuation snapshots are shared by every connection.
 */
export class ThreadListing {
  readonly counters: ListingCounters;
  private readonly folders = new Map<string, FolderIndex>();
  private readonly snapshots: SnapshotStore<Row>;
  private readonly limiter = new Limiter(MAX_OPEN_TRANSCRIPTS);
  private readonly openTranscript: OpenTranscript;
  private readonly tuning: Pick<FolderDeps, "shardRecords" | "workerLookNames" | "trustIndex">;
  private readonly onChanged: ThreadListingOptions["onChanged"];

  constructor(options: ThreadListingOptions = {}) {
    this.tuning = {
      ...(options.indexShardRecords === undefined ? {} : { shardRecords: options.indexShardRecords }),
      ...(options.workerLookNames === undefined ? {} : { workerLookNames: options.workerLookNames }),
      ...(options.trustIndex === undefined ? {} : { trustIndex: options.trustIndex }),
    };
    this.onChanged = options.onChanged;
    this.counters = options.counters ?? { listingFilesOpened: 0, listingBytesScanned: 0 };
    this.snapshots = new SnapshotStore(options.now ?? Date.now);
    this.openTranscript = options.openTranscript ?? ((path) => open(path, "r"));
  }

  /**
   * A page of thread summaries, newest first. A first page refreshes the
   * folders and keeps the whole result as a snapshot; its cursor pages
   * through that snapshot without touching the disk.
   */
  async list(request: ListRequest): Promise<ListResult> {
    const limit = checkLimit(request.limit);
    const archived = request.archived === true;
    const cwd = request.cwd === undefined ? undefined : resolve(request.cwd);
    const search = request.search === undefined || request.search === "" ? undefined : request.search;
    const parent = request.parentThreadId;
    const filter = JSON.stringify([cwd ?? null, archived, search ?? null, parent ?? null]);
    if (request.cursor !== undefined) {
      const { id, rows, offset } = this.snapshots.resume(request.cursor, filter);
      const page = pageOf(rows, offset, limit, archived, await this.reread(rows.slice(offset, offset + limit)));
      return page.next === undefined ? { threads: page.threads } : { threads: page.threads, nextCursor: this.snapshots.cursorAt(id, page.next) };
    }
    const inCwd = await this.collect(request.folders, archived, cwd, request.signal);
    const children = parent === undefined ? inCwd : await this.childrenOf(inCwd, parent);
    const rows = search === undefined ? children : await this.searched(children, search);
    const page = pageOf(rows, 0, limit, archived, await this.reread(rows.slice(0, limit)));
    if (page.next === undefined) return { threads: page.threads };
    return { threads: page.threads, nextCursor: this.snapshots.cursorAt(this.snapshots.save(rows, filter), page.next) };
  }

  /**
   * One thread's summary from its transcript path, through its folder's
   * index: a stat, and a read only when the file changed since it was
   * indexed. Undefined when the file is not a transcript.
   */
  async summaryOf(path: string): Promise<StoredThreadSummary | undefined> {
    const absolute = resolve(path);
    const row = await this.folder(dirname(absolute)).rowOf(basename(absolute));
    return row === undefined ? undefined : summaryOf(row, basename(dirname(absolute)) === ARCHIVED_FOLDER);
  }

  /**
   * The rows whose title contains `search`, ignoring case. A record's
   * stored text is looked at first: when the search is plain ASCII, a
   * title holding it has it verbatim there, so most rows are passed over
   * without decoding.
   */
  private searched(rows: readonly Row[], search: string): Promise<Row[]> {
    const needle = search.toLowerCase();
    const plain = /^[\x20-\x7e]+$/.test(needle) && !/["\\]/.test(needle);
    const candidates = plain ? rows.filter((row) => !(row.facts instanceof StoredFacts) || row.facts.text().toLowerCase().includes(needle)) : rows;
    return this.filtered(candidates, false, (facts) => titleOf(facts).toLowerCase().includes(needle));
  }

  /**
   * The rows whose header names `parent` as their parent thread. As for a
   * search, a record's stored text is looked at first: a plain id is there
   * verbatim in a child's record, so the other rows are passed over without
   * decoding.
   */
  private childrenOf(rows: readonly Row[], parent: string): Promise<Row[]> {
    const quoted = JSON.stringify(parent);
    const plain = /^[\x20-\x7e]+$/.test(parent) && !/["\\]/.test(parent);
    const candidates = plain ? rows.filter((row) => !(row.facts instanceof StoredFacts) || row.facts.text().includes(quoted)) : rows;
    return this.filtered(candidates, false, (facts) => facts.header.parentThreadId === parent);
  }

  /**
   * The rows whose facts `wanted` keeps, each decoded once (and kept
   * decoded when `keep`). A damaged record's transcript is read again and
   * judged as it now is; a row that is no longer a transcript is left out.
   */
  private async filtered(rows: readonly Row[], keep: boolean, wanted: (facts: TranscriptFacts) => boolean): Promise<Row[]> {
    const kept: Row[] = [];
    for (const row of rows) {
      let current: Row | undefined = row;
      let facts: TranscriptFacts;
      try {
        facts = factsOf(row, keep);
      } catch (error) {
        if (!(error instanceof BadRecord)) throw error;
        current = await this.folder(dirname(pathOf(row))).rowOf(row.name);
        if (current === undefined) continue;
        facts = factsOf(current, keep);
      }
      if (wanted(facts)) kept.push(current);
    }
    return kept;
  }

  /**
   * Decodes the facts of `rows`; those whose records turn out damaged are
   * read again from their transcripts. Answers the rows read again.
   */
  private async reread(rows: readonly Row[]): Promise<Map<Row, Row | undefined>> {
    const reread = new Map<Row, Row | undefined>();
    for (const row of rows) {
      try {
        factsOf(row);
      } catch (error) {
        if (!(error instanceof BadRecord)) throw error;
        reread.set(row, await this.folder(dirname(pathOf(row))).rowOf(row.name));
      }
    }
    return reread;
  }

  /**
   * The owner of the transcript at `path` (this process) wrote to it; its
   * folder's index catches up shortly after, or at the latest on close.
   */
  noteWritten(path: string): void {
    const absolute = resolve(path);
    this.folder(dirname(absolute)).noteWritten(basename(absolute));
  }

  /** Waits for index files still being written, records of written transcripts included; for tests, benchmarks and shutdown. */
  async flush(): Promise<void> {
    await Promise.all([...this.folders.values()].map((folder) => folder.flush()));
  }

  /** Stops watching folders and waits for index writes, stamped for the next process; the engine can still list afterwards, statting everything. */
  async close(): Promise<void> {
    for (const folder of this.folders.values()) folder.close();
    await this.flush();
    await Promise.all([...this.folders.values()].map((folder) => folder.stampOnClose()));
  }

  /**
   * Every matching transcript of the folders, newest first; the folders are
   * refreshed one after the other. The result may be a folder's own cached
   * array: rows are never changed once listed.
   */
  private async collect(folders: readonly string[], archived: boolean, cwd: string | undefined, signal: AbortSignal | undefined): Promise<readonly Row[]> {
    const dirs = new Set(folders.map((folder) => (archived ? join(resolve(folder), ARCHIVED_FOLDER) : resolve(folder))));
    const lists: Array<readonly Row[]> = [];
    for (const dir of dirs) lists.push(await this.folder(dir).refresh(signal));
    // Each list is sorted already: the sort merges runs.
    const rows = lists.length === 1 ? lists[0]! : lists.flat().sort(newestFirst);
    // A project's listing is asked for again and again: its rows keep their facts decoded.
    return cwd === undefined ? rows : this.filtered(rows, true, (facts) => facts.header.cwd === cwd || facts.workspace?.cwd === cwd);
  }

  /** A folder's changes as summaries; a record that does not decode is left out (the next listing reads its transcript again). */
  private tell(dir: string, changes: readonly FolderChange[]): void {
    const archived = basename(dir) === ARCHIVED_FOLDER;
    const summary = (row: Row | undefined) => (row === undefined || factsOrUndefined(row) === undefined ? undefined : summaryOf(row, archived));
    const told: ListingChange[] = [];
    for (const { before, after } of changes) {
      const was = summary(before);
      const now = summary(after);
      if (was !== undefined || now !== undefined) told.push({ ...(was === undefined ? {} : { before: was }), ...(now === undefined ? {} : { after: now }) });
    }
    if (told.length > 0) this.onChanged?.(told);
  }

  private folder(dir: string): FolderIndex {
    let folder = this.folders.get(dir);
    if (folder === undefined) {
      const onChanged = this.onChanged === undefined ? undefined : (changes: readonly FolderChange[]) => this.tell(dir, changes);
      folder = new FolderIndex(dir, {
        openTranscript: this.openTranscript,
        counters: this.counters,
        limiter: this.limiter,
        ...this.tuning,
        ...(onChanged === undefined ? {} : { onChanged }),
      });
      this.folders.set(dir, folder);
    }
    return folder;
  }
}
