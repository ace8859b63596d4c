import { fdatasyncSync, fstatSync, statSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { randomEntryId } from "./entry-id.js";
import { SessionFileError } from "./errors.js";
import { Flusher } from "./flusher.js";
import { serializeEntry, toEntry, type EntryOfType, type NewEntry, type SessionEntry, type SessionHeader } from "./format.js";
import { branchPath, readEntries, readEntriesSync, type ReadEntriesResult } from "./read.js";
import { scanSession, type EntryRef, type SessionIssue } from "./scan.js";
import { cloneSummary, foldEntry, summaryOf, type BranchSummary } from "./summary.js";
import { createParts, openParts, type CreateSessionOptions, type Parts, type SessionFileOptions } from "./session-open.js";

export interface AppendOptions {
  /** fsync before returning. turn_end entries are always durable. */
  durable?: boolean;
}

/** An entry appended before the index and branch were loaded. */
interface Pending {
  ref: EntryRef;
  entry: SessionEntry;
}

/**
 * The owner of one transcript: holds its lock, appends whole lines, and keeps
 * the index and the current branch in memory. One process owns a file at a
 * time; readers (readSession, scanSession, readEntries) need no ownership.
 */
export class SessionFile {
  private state: "open" | "lost" | "closed" = "open";
  private lostReason = "";
  private lastOwnershipCheck = performance.now();
  private dense: SessionEntry[] | undefined;
  private pending: Pending[] = [];
  private loading: Promise<void> | undefined;
  private readonly now: () => number;
  private readonly checkEveryMs: number;
  private readonly onWritten: ((path: string) => void) | undefined;
  private readonly flusher: Flusher;

  private constructor(
    private readonly parts: Parts,
    options: SessionFileOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.checkEveryMs = options.ownershipCheckMs ?? 250;
    this.onWritten = options.onWritten;
    this.flusher = new Flusher(parts.fd, options.syncFile);
  }

  /** Creates the folder and a new transcript holding only its header, durably, and owns it. */
  static async create(options: CreateSessionOptions): Promise<SessionFile> {
    const file = new SessionFile(createParts(options), options);
    file.noteWritten();
    return file;
  }

  /** Owns an existing transcript and loads its index and current branch (or only its tail, when lazy). */
  static async open(path: string, options: SessionFileOptions = {}): Promise<SessionFile> {
    return new SessionFile(await openParts(path, options), options);
  }

  /** The path as given (absolute). */
  get path(): string {
    return this.parts.path;
  }

  /** The resolved path: the lock sits beside it, so every alias shares one lock. */
  get realPath(): string {
    return this.parts.realPath;
  }

  get header(): SessionHeader {
    return this.parts.header;
  }

  /** The entry the next append attaches to; null before the first entry. */
  get leafId(): string | null {
    return this.parts.leafId;
  }

  /** What loading found, and tails moved aside since. */
  get issues(): readonly SessionIssue[] {
    return this.parts.issues;
  }

  /** The latest entry time, or the header's creation time for a thread without entries. */
  get updatedAt(): number {
    return this.parts.lastTimestamp ?? Date.parse(this.parts.header.createdAt);
  }

  /** What the current branch leaves behind (model, levels, name, usage), whether or not the branch is loaded. */
  summary(): BranchSummary {
    return cloneSummary(this.parts.summary);
  }

  /** Whether `branch()` and the index are available (always, unless opened lazily and not loaded yet). */
  get isLoaded(): boolean {
    return this.parts.loaded;
  }

  /**
   * Reads the index and the current branch of a lazily opened file, once,
   * without blocking appends: what is appended meanwhile joins them after.
   */
  loadBranch(): Promise<void> {
    if (this.parts.loaded) return Promise.resolve();
    this.loading ??= this.loadNow().finally(() => (this.loading = undefined));
    return this.loading;
  }

  /** The current branch, root first; entries that could not be read are left out (see `issues`). */
  branch(): readonly SessionEntry[] {
    this.assertLoaded();
    this.dense ??= this.parts.branchEntries.filter((entry): entry is SessionEntry => entry !== undefined);
    return this.dense;
  }

  /**
   * The branch's entries after `entryId` up to the leaf, oldest first, from
   * memory: what a read from disk that began when `entryId` was the leaf can
   * have missed. Undefined when that stretch is not all in memory (another
   * branch, or entries this process never held).
   */
  entriesSince(entryId: string | null): SessionEntry[] | undefined {
    const held: readonly (SessionEntry | undefined)[] = this.parts.loaded ? this.parts.branchEntries : this.pending.map((p) => p.entry);
    const since: SessionEntry[] = [];
    let wanted = this.parts.leafId;
    // What was appended last sits at the end: walk back from there, parent by parent.
    for (let i = held.length - 1; i >= 0 && wanted !== entryId; i--) {
      const entry = held[i];
      if (entry === undefined || entry.id !== wanted) continue;
      since.push(entry);
      wanted = entry.parentId;
    }
    return wanted === entryId ? since.reverse() : undefined;
  }

  /** Every usable entry's place in the file, in file order: what history paging works from. */
  refs(): readonly EntryRef[] {
    this.assertLoaded();
    return this.parts.refs;
  }

  entryRef(id: string): EntryRef | undefined {
    this.assertLoaded();
    return this.parts.byId.get(id);
  }

  /**
   * Where an entry this process holds sits in the file, whether or not the
   * file is loaded: a running turn's start, so history can be read up to it.
   * Undefined for an entry this process never held.
   */
  heldRef(id: string): EntryRef | undefined {
    if (this.parts.loaded) return this.parts.byId.get(id);
    for (let i = this.pending.length - 1; i >= 0; i--) if (this.pending[i]!.ref.id === id) return this.pending[i]!.ref;
    return undefined;
  }

  /** Reads entries of this file by their refs, through the owner's descriptor. */
  read(refs: readonly EntryRef[]): ReadEntriesResult {
    this.assertNotClosed();
    return readEntriesSync(this.parts.fd, refs);
  }

  /** Whether this object still owns the file: open, lock ours, and the path still names our file. */
  isOwned(): boolean {
    if (this.state !== "open") return false;
    try {
      return this.parts.lock.isStillHeld() && fstatSync(this.parts.fd).nlink > 0 && this.pathStillOurs();
    } catch {
      return false;
    }
  }

  /**
   * Appends one entry under the current leaf and makes it the leaf. The line
   * reaches the file whole or not at all ("writeFailed"); an ownership problem
   * stops all further writes ("ownershipLost").
   */
  append<E extends NewEntry>(entry: E, options: AppendOptions = {}): EntryOfType<E["type"]> {
    return this.write(entry, options.durable === true || entry.type === "turn_end" ? "now" : "no");
  }

  /**
   * Appends as a durable append does (ownership checked in full), but
   * syncs off the event loop: the entry at once, and `durable`, settled
   * once fdatasync on libuv's pool returns (writeFailed when it fails).
   * The thread waiting for it is the only one that waits.
   */
  appendThenSync<E extends NewEntry>(entry: E): { entry: EntryOfType<E["type"]>; durable: Promise<void> } {
    const stored = this.write(entry, "later");
    const durable = this.flusher.flush().catch((error: unknown) => {
      throw new SessionFileError("writeFailed", `could not sync ${this.parts.path}: ${(error as Error).message}`, { path: this.parts.path, cause: error });
    });
    return { entry: stored, durable };
  }

  /** One line; `sync` says whether it is synced before returning ("now") or by the caller ("later"), either way after a full ownership check. */
  private write<E extends NewEntry>(entry: E, sync: "now" | "later" | "no"): EntryOfType<E["type"]> {
    this.assertWritable();
    const { appender } = this.parts;
    appender.settle();
    this.verifyOwnership(sync !== "no");
    if (appender.needsRepair) {
      const issue = appender.repairTail();
      if (issue !== undefined) this.parts.issues.push(issue);
    }
    const stored = this.complete(entry);
    // A turn end records what the branch leaves behind, so a later load can start there.
    if (stored.type === "turn_end" && !("state" in stored)) (stored as unknown as { state: BranchSummary }).state = this.summary();
    const line = serializeEntry(stored);
    const { offset, length } = appender.appendLine(line, sync === "now");
    const ref: EntryRef = {
      type: stored.type,
      id: stored.id,
      parentId: stored.parentId,
      timestamp: stored.timestamp,
      offset,
      length,
      line: ++this.parts.lineCount,
    };
    if (this.parts.loaded) {
      this.parts.refs.push(ref);
      this.parts.byId.set(ref.id, ref);
      this.parts.branchRefs.push(ref);
      this.parts.branchEntries.push(stored);
      this.dense?.push(stored);
    } else {
      this.pending.push({ ref, entry: stored });
    }
    this.parts.leafId = ref.id;
    this.parts.lastTimestamp = stored.timestamp;
    foldEntry(this.parts.summary, stored);
    this.noteWritten();
    return stored as EntryOfType<E["type"]>;
  }

  /**
   * Moves the leaf, so the next append starts a new branch from `entryId`
   * (null: a new root). Nothing is written until then: on disk the leaf stays
   * the last entry.
   */
  setLeaf(entryId: string | null): void {
    this.assertNotClosed();
    this.assertLoaded();
    const { parts } = this;
    if (entryId === parts.leafId) return;
    if (entryId !== null && !parts.byId.has(entryId)) {
      throw new SessionFileError("notFound", `no entry ${entryId} in ${parts.path}`, { path: parts.path, entryId });
    }
    const path = branchPath(parts.byId, entryId);
    let shared = 0;
    while (shared < path.length && shared < parts.branchRefs.length && path[shared] === parts.branchRefs[shared]) shared++;
    const loaded = readEntriesSync(parts.fd, path.slice(shared));
    parts.issues.push(...loaded.issues);
    parts.branchRefs = path;
    parts.branchEntries = [...parts.branchEntries.slice(0, shared), ...loaded.entries];
    parts.leafId = entryId;
    parts.summary = summaryOf(parts.branchEntries.filter((entry): entry is SessionEntry => entry !== undefined));
    this.dense = undefined;
  }

  /**
   * When the file was last written, by the clock the kernel stamps files
   * with: a moment to compare other files' modification times against
   * without the skew between that clock and `Date.now()`.
   */
  lastWrittenAt(): number {
    return fstatSync(this.parts.fd).mtimeMs;
  }

  /** fsyncs what was appended so far. */
  sync(): void {
    this.assertWritable();
    this.parts.appender.sync();
  }

  /** Syncs, releases the lock and the descriptor (once no flush uses it). Idempotent. */
  close(): void {
    if (this.state === "closed") return;
    const wasOwned = this.state === "open";
    this.state = "closed";
    try {
      if (wasOwned) fdatasyncSync(this.parts.fd);
    } catch {
      // Nothing more can be done for those bytes here; the lock still goes.
    }
    this.flusher.close();
    this.parts.lock.release();
  }

  private complete(entry: NewEntry): SessionEntry {
    const { type, timestamp, ...fields } = entry as NewEntry & { id?: unknown; parentId?: unknown };
    delete fields.id;
    delete fields.parentId;
    let id = randomEntryId();
    while (this.parts.byId.has(id)) id = randomEntryId();
    const stored = { type, id, parentId: this.parts.leafId, timestamp: timestamp ?? this.now(), ...fields };
    const checked = toEntry(stored);
    if (!checked.ok) throw new TypeError(`refusing to write a ${type} entry: ${checked.reason}`);
    return checked.entry;
  }

  /** The bytes are on disk whatever the observer does: its failure never fails the write. */
  private noteWritten(): void {
    try {
      this.onWritten?.(this.parts.path);
    } catch {
      // Only a cache can miss this write; the stat check finds it.
    }
  }

  private assertNotClosed(): void {
    if (this.state === "closed") throw new SessionFileError("closed", `${this.parts.path} was closed`, { path: this.parts.path });
  }

  private assertLoaded(): void {
    if (!this.parts.loaded) throw new Error(`${this.parts.path}: the branch is not loaded yet (await loadBranch())`);
  }

  /** The index of the bytes as they were when loading began, then the appends made since. */
  private async loadNow(): Promise<void> {
    const { parts } = this;
    const size = parts.appender.size;
    const before = this.pending.length;
    const leafAtStart = parts.leafId;
    const index = await scanSession(parts.realPath, { size });
    const leaf = leafAtStart !== null && index.byId.has(leafAtStart) ? leafAtStart : index.leafId;
    const branchRefs = branchPath(index.byId, leaf);
    const loaded = await readEntries(parts.realPath, branchRefs);
    this.assertNotClosed();
    // From here on nothing awaits: appends made while reading join in order.
    const later = this.pending.slice(before).filter((p) => p.ref.offset >= size);
    let line = index.lineCount;
    for (const { ref } of later) ref.line = ++line;
    parts.refs = [...index.refs, ...later.map((p) => p.ref)];
    parts.byId = new Map(index.byId);
    for (const { ref } of later) parts.byId.set(ref.id, ref);
    parts.branchRefs = [...branchRefs, ...later.map((p) => p.ref)];
    parts.branchEntries = [...loaded.entries, ...later.map((p) => p.entry)];
    parts.issues.push(...index.issues, ...loaded.issues);
    parts.lineCount = line;
    parts.loaded = true;
    this.pending = [];
    this.dense = undefined;
  }

  private assertWritable(): void {
    this.assertNotClosed();
    if (this.state === "lost") throw new SessionFileError("ownershipLost", `${this.parts.path}: ${this.lostReason}`, { path: this.parts.path });
  }

  private pathStillOurs(): boolean {
    try {
      const now = statSync(this.parts.realPath);
      return now.ino === this.parts.identity.ino && now.dev === this.parts.identity.dev;
    } catch {
      return false;
    }
  }

  /**
   * Checks ownership now, as a durable append would (lock, links, size,
   * path), without writing. On a loss all further writes stop and the reason
   * is returned; undefined while the file is still ours (or closed).
   */
  probeOwnership(): string | undefined {
    if (this.state === "closed") return undefined;
    if (this.state === "lost") return this.lostReason;
    try {
      this.verifyOwnership(true);
      return undefined;
    } catch (error) {
      if (error instanceof SessionFileError && error.code === "ownershipLost") return this.lostReason;
      throw error;
    }
  }

  /** Cheap checks every append; the lock file is re-read at most every `ownershipCheckMs`, and before every durable append. */
  private verifyOwnership(force: boolean): void {
    const stats = fstatSync(this.parts.fd);
    if (stats.nlink === 0) this.lose("the file was deleted");
    if (stats.size !== this.parts.appender.size)
      this.lose(`the file was changed by another writer (${stats.size} bytes, expected ${this.parts.appender.size})`);
    const clock = performance.now();
    if (!force && clock - this.lastOwnershipCheck < this.checkEveryMs) return;
    this.lastOwnershipCheck = clock;
    if (!this.parts.lock.isStillHeld()) this.lose("its lock was removed or taken by another process");
    if (!this.pathStillOurs()) this.lose("its path now names another file");
  }

  private lose(reason: string): never {
    this.state = "lost";
    this.lostReason = `ownership lost: ${reason}`;
    this.parts.lock.release();
    throw new SessionFileError("ownershipLost", `${this.parts.path}: ${this.lostReason}`, { path: this.parts.path });
  }
}
