import { readdirSync, unlinkSync } from "node:fs";
import { nextTurn } from "@knightcode/system/util/next-turn";
import { writeFileAtomicAsync } from "@knightcode/system/fs/atomic-write";
import {
  identityOf,
  INDEX_FILE,
  INDEX_VERSION,
  loadIndex,
  MAX_INDEX_BYTES,
  MAX_SHARDS,
  sameIdentity,
  serializeShard,
  SHARD_NAME,
  SHARD_RECORDS,
  shardCountFor,
  shardFileName,
  shardOf,
  type FileIdentity,
  type LoadedIndex,
} from "./index-file.js";
import { writeStamp } from "./index-stamp.js";
import type { IndexedFile } from "./record.js";

/** The records in `count` shards, by the name's hash. */
function bucketsOf(files: ReadonlyMap<string, IndexedFile>, count: number): IndexedFile[][] {
  const buckets = Array.from({ length: count }, () => [] as IndexedFile[]);
  for (const [name, file] of files) buckets[shardOf(name, count)]!.push(file);
  return buckets;
}

function sameRecords(records: readonly IndexedFile[], written: readonly IndexedFile[] | undefined): boolean {
  if (written === undefined || written.length !== records.length) return false;
  const held = new Set(written);
  return records.every((file) => held.has(file));
}

/**
 * Writes a folder's index in the background, after the current turn of the
 * event loop so that the listing answers first. Writes never overlap; one
 * asked for during another follows it with the newest state. Each file is
 * replaced at once (temporary file, then rename), so readers, in this
 * process or another, see the old file or the new one, never a mix; a
 * sharded index writes its shards before the file that names their count.
 * Only shards whose records changed since this process last wrote or read
 * them are written. A failure (a read-only folder, a full disk) only costs
 * the cache.
 *
 * Several processes may write one folder's index (two servers, a server
 * and a terminal session). Before each write, files rewritten by someone
 * else since this process last read or wrote them are read again, and
 * their records are carried into ours: kept in the files, never trusted
 * here (a listing here only uses what it checked itself). A carried record
 * gives way to ours unless it describes the same file grown further.
 * Rewrites that cross can still lose a record; that only costs a read.
 *
 * After its last rename into the folder, a write stamps the index with the
 * folder's times and its files' identities (index-stamp.ts) when the folder
 * says its records are the truth: a new process may then answer its first
 * page from the index alone.
 */
export class IndexWriter {
  private writing: Promise<void> | undefined;
  private wanted = false;
  /** The index files as this process last read or wrote them. */
  private known = new Map<string, FileIdentity>();
  /** The shard count of the files on disk, as far as this process knows. */
  private shards = 0;
  /** What each shard holds on disk, as far as this process knows; by shard number at `shards`. */
  private written = new Map<number, readonly IndexedFile[]>();
  private readonly carried = new Map<string, IndexedFile>();

  /** `dir` ends in the path separator. */
  constructor(
    private readonly dir: string,
    private readonly current: () => ReadonlyMap<string, IndexedFile>,
    private readonly onWritten: () => void,
    /** Whether the records are what a full look would find, bar foreign edits: only then is the index stamped. */
    private readonly stampable: () => boolean,
    /** Transcripts per shard; tests make shards small. */
    private readonly perShard = SHARD_RECORDS,
  ) {}

  /** The index as the folder loaded it: a shard read whole need not be written again until it changes. */
  loaded(index: LoadedIndex): void {
    this.known = new Map(index.identities);
    // No index file yet, or one to replace: every file is written.
    this.shards = index.replace || !index.identities.has(INDEX_FILE) ? 0 : index.shards;
    this.written = new Map(index.byShard.map((records, at) => [at, records]));
  }

  /** A transcript went: a record carried for it goes too. */
  forget(name: string): void {
    this.carried.delete(name);
  }

  /** After a full look at the folder: records carried for names it no longer holds go. */
  keepOnly(names: readonly string[]): void {
    if (this.carried.size === 0) return;
    const present = new Set(names);
    for (const name of this.carried.keys()) if (!present.has(name)) this.carried.delete(name);
  }

  schedule(): void {
    this.wanted = true;
    if (this.writing !== undefined) return;
    this.writing = this.writeWhileWanted()
      .catch(() => undefined)
      .finally(() => (this.writing = undefined));
  }

  /** Resolves once the files hold the state of the last schedule() (or that write failed). */
  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private async writeWhileWanted(): Promise<void> {
    while (this.wanted) {
      this.wanted = false;
      await nextTurn();
      this.carryForeign();
      try {
        await this.write(this.merged());
        this.onWritten();
      } catch {
        // Best effort: the next change tries again.
      }
    }
  }

  private async write(files: ReadonlyMap<string, IndexedFile>): Promise<void> {
    for (let count = shardCountFor(files.size, this.perShard); count <= MAX_SHARDS; count *= 2) {
      const buckets = bucketsOf(files, count);
      const texts = new Map<number, string>();
      buckets.forEach((records, at) => {
        if (this.shards !== count || !sameRecords(records, this.written.get(at))) texts.set(at, serializeShard(records, `${count}-${at}`));
      });
      if ([...texts.values()].some((text) => Buffer.byteLength(text) > MAX_INDEX_BYTES)) continue;
      for (const [at, text] of texts) await this.writeFile(shardFileName(count, at), text);
      if (this.shards !== count) await this.writeFile(INDEX_FILE, JSON.stringify({ version: INDEX_VERSION, shards: count }));
      this.settled(count, buckets);
      if (this.stampable()) writeStamp(this.dir, count, this.known);
      return;
    }
  }

  private async writeFile(name: string, text: string): Promise<void> {
    await writeFileAtomicAsync(this.dir + name, text, { mode: 0o600 });
    const identity = identityOf(this.dir + name);
    if (identity !== undefined) this.known.set(name, identity);
  }

  /** The files now hold `buckets` in `count` shards: shard files of any other count go. */
  private settled(count: number, buckets: readonly IndexedFile[][]): void {
    if (this.shards !== count) this.removeShardsBut(count);
    this.shards = count;
    this.written = new Map(buckets.map((records, at) => [at, records]));
  }

  private removeShardsBut(count: number): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const match = SHARD_NAME.exec(name);
      if (match === null || (Number(match[1]) === count && Number(match[2]) < count)) continue;
      try {
        unlinkSync(this.dir + name);
        this.known.delete(name);
      } catch {
        // Left for the next write that changes the count.
      }
    }
  }

  /**
   * Takes in the records of index files someone else wrote since this
   * process last read or wrote them; a record of a transcript this process
   * does not know is taken only while the transcript exists.
   */
  private carryForeign(): void {
    const changed = (name: string) => {
      const now = identityOf(this.dir + name);
      const known = this.known.get(name);
      return (now !== undefined || known !== undefined) && !sameIdentity(now, known);
    };
    if (![INDEX_FILE, ...this.known.keys()].some(changed)) return;
    const index = loadIndex(this.dir);
    const ours = this.current();
    for (const [name, file] of index.files) if (ours.has(name) || identityOf(this.dir + name) !== undefined) this.carried.set(name, file);
    this.known = new Map(index.identities);
    // What the files hold is no longer what this process wrote: every shard is written again.
    this.shards = 0;
    this.written = new Map();
  }

  private merged(): ReadonlyMap<string, IndexedFile> {
    const ours = this.current();
    if (this.carried.size === 0) return ours;
    const merged = new Map(this.carried);
    for (const [name, file] of ours) {
      const other = merged.get(name);
      // Transcripts only grow: the same file seen larger elsewhere is the newer record.
      if (other === undefined || other.ino !== file.ino || file.size >= other.size) merged.set(name, file);
    }
    return merged;
  }
}
