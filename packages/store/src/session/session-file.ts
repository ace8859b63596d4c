import { randomFillSync, randomUUID } from "node:crypto";
import { closeSync, constants, fdatasyncSync, fstatSync, openSync, readSync, realpathSync, statSync, type Stats } from "node:fs";
import { basename, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { FileLock, LockHeldError } from "@knightcode/system/fs/file-lock";
import { LineAppender } from "./appender.js";
import { errnoCode, SessionFileError } from "./errors.js";
import {
  SESSION_FORMAT_VERSION,
  serializeEntry,
  serializeHeader,
  toEntry,
  type EntryOfType,
  type NewEntry,
  type SessionEntry,
  type SessionHeader,
} from "./format.js";
import { assertThreadId, sessionFileName } from "./paths.js";
import { ensureDirectory, publishBytesExclusive } from "./publish.js";
import { branchPath, readEntries, readEntriesSync, type ReadEntriesResult } from "./read.js";
import { readBranchTail } from "./read-page.js";
import { notASessionFile, scanSession, type EntryRef, type SessionIssue } from "./scan.js";
import { cloneSummary, emptySummary, foldEntry, summaryOf, type BranchSummary } from "./summary.js";

export interface SessionFileOptions {
  /** Clock for header and entry times (Unix ms). */
  now?: () => number;
  /**
   * Open from the newest checkpoint instead of reading the whole branch:
   * the summary, the leaf and appends work at once; `branch()` and the
   * index wait for `loadBranch()`. A file whose tail needs repair opens in
   * full.
   */
  lazy?: boolean;
  /** How often a non-durable append re-reads the lock; durable appends always do. */
  ownershipCheckMs?: number;
  /**
   * Told the file's path once the file is created and after each append:
   * how a listing's index keeps up with what its owner writes. Called
   * synchronously on the append's path, so it must only take note.
   */
  onWritten?: (path: string) => void;
}

export interface CreateSessionOptions extends SessionFileOptions {
  dir: string;
  cwd: string;
  /** The thread id (a UUID); a new one by default. */
  id?: string;
  forkedFromId?: string;
}

export interface AppendOptions {
  /** fsync before returning. turn_end entries are always durable. */
  durable?: boolean;
}

const idPool = Buffer.alloc(6 * 512);
let idPoolAt = idPool.length;

/** 12 hex characters; drawn from a pooled buffer because appends are frequent. */
function randomEntryId(): string {
  if (idPoolAt >= idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  idPoolAt += 6;
  return idPool.toString("hex", idPoolAt - 6, idPoolAt);
}

/** Owns the transcript at `path` (real path `realPath`) across processes, or says who does. */
export function takeLock(path: string, realPath: string): FileLock {
  try {
    return FileLock.acquire(`${realPath}.lock`, "session");
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    const who = error.holder ? `process ${error.holder.pid} on ${error.holder.host}` : "another process";
    throw new SessionFileError("lockedElsewhere", `${path} is owned by ${who}`, { path, holder: error.holder, cause: error });
  }
}

/** Whether the file's last byte is a line feed: a tail that needs no repair. */
function endsWithNewline(fd: number, size: number): boolean {
  if (size === 0) return false;
  const byte = Buffer.alloc(1);
  return readSync(fd, byte, 0, 1, size - 1) === 1 && byte[0] === 0x0a;
}

/** Another writer must not have touched the file while it was read for opening. */
function checkUnchanged(path: string, realPath: string, fd: number, identity: Stats, size: number): void {
  const now = statSync(realPath);
  if (fstatSync(fd).size !== size || now.ino !== identity.ino || now.dev !== identity.dev) {
    throw new SessionFileError("ownershipLost", `${path} changed on disk while it loaded`, { path });
  }
}

function refuseHardLinks(path: string, stats: Stats): void {
  if (stats.nlink > 1) {
    throw new SessionFileError("hardLinked", `${path} has ${stats.nlink} hard links; a transcript must have one name to be owned safely`, { path });
  }
}

function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") throw new SessionFileError("notFound", `${path} does not exist`, { path, cause: error });
    throw error;
  }
}

function openForAppend(realPath: string): number {
  return openSync(realPath, constants.O_RDWR | constants.O_APPEND);
}

interface Parts {
  path: string;
  realPath: string;
  header: SessionHeader;
  lock: FileLock;
  fd: number;
  identity: Stats;
  appender: LineAppender;
  refs: EntryRef[];
  byId: Map<string, EntryRef>;
  leafId: string | null;
  branchRefs: EntryRef[];
  branchEntries: Array<SessionEntry | undefined>;
  issues: SessionIssue[];
  lineCount: number;
  /** What the current branch leaves behind; kept up to date by appends. */
  summary: BranchSummary;
  /** The newest entry's time. */
  lastTimestamp: number | undefined;
  /** False while a lazily opened file has not read its index and branch. */
  loaded: boolean;
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

  private constructor(
    private readonly parts: Parts,
    options: SessionFileOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.checkEveryMs = options.ownershipCheckMs ?? 250;
    this.onWritten = options.onWritten;
  }

  /** Creates the folder and a new transcript holding only its header, durably, and owns it. */
  static async create(options: CreateSessionOptions): Promise<SessionFile> {
    const id = options.id ?? randomUUID();
    assertThreadId(id);
    const now = options.now ?? Date.now;
    const header: SessionHeader = { type: "session", version: SESSION_FORMAT_VERSION, id, cwd: resolve(options.cwd), createdAt: new Date(now()).toISOString() };
    if (options.forkedFromId !== undefined) header.forkedFromId = options.forkedFromId;
    const dir = resolve(options.dir);
    ensureDirectory(dir);
    const path = join(dir, sessionFileName(header.createdAt, id));
    const realPath = join(realpathSync(dir), basename(path));
    const lock = takeLock(path, realPath);
    let fd: number | undefined;
    try {
      publishBytesExclusive(realPath, Buffer.from(`${serializeHeader(header)}\n`));
      fd = openForAppend(realPath);
      const identity = fstatSync(fd);
      const appender = new LineAppender(fd, realPath, identity.size, undefined, false);
      const parts: Parts = {
        ...{ path, realPath, header, lock, fd, identity, appender, refs: [], byId: new Map(), leafId: null, branchRefs: [], branchEntries: [], issues: [] },
        ...{ lineCount: 1, summary: emptySummary(), lastTimestamp: undefined, loaded: true },
      };
      const file = new SessionFile(parts, options);
      file.noteWritten();
      return file;
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      lock.release();
      throw error;
    }
  }

  /** Owns an existing transcript and loads its index and current branch. */
  static async open(path: string, options: SessionFileOptions = {}): Promise<SessionFile> {
    const absolute = resolve(path);
    const realPath = realPathOf(absolute);
    const stats = statSync(realPath);
    if (!stats.isFile()) throw notASessionFile(absolute, "not a regular file");
    refuseHardLinks(absolute, stats);
    const lock = takeLock(absolute, realPath);
    let fd: number | undefined;
    try {
      fd = openForAppend(realPath);
      const identity = fstatSync(fd);
      refuseHardLinks(absolute, identity);
      if (options.lazy && endsWithNewline(fd, identity.size)) {
        const tail = await readBranchTail(realPath);
        checkUnchanged(absolute, realPath, fd, identity, identity.size);
        const appender = new LineAppender(fd, realPath, identity.size, undefined, false);
        const parts: Parts = {
          ...{ path: absolute, realPath, header: tail.header, lock, fd, identity, appender, refs: [], byId: new Map(), leafId: tail.leaf?.id ?? null },
          ...{ branchRefs: [], branchEntries: [], issues: [], lineCount: 0, summary: tail.summary, lastTimestamp: tail.leaf?.timestamp, loaded: false },
        };
        return new SessionFile(parts, options);
      }
      const index = await scanSession(realPath);
      checkUnchanged(absolute, realPath, fd, identity, index.size);
      const torn = index.goodSize < index.size ? { offset: index.goodSize, end: index.size, line: index.lineCount + 1 } : undefined;
      const appender = new LineAppender(fd, realPath, index.size, torn, index.missingFinalNewline);
      const branchRefs = branchPath(index.byId, index.leafId);
      const loaded = await readEntries(realPath, branchRefs);
      const issues = [...index.issues, ...loaded.issues];
      const { header, refs, byId, leafId, lineCount } = index;
      const summary = summaryOf(loaded.entries.filter((entry): entry is SessionEntry => entry !== undefined));
      const parts: Parts = {
        ...{ path: absolute, realPath, header, lock, fd, identity, appender, refs, byId, leafId, branchRefs, branchEntries: loaded.entries, issues, lineCount },
        ...{ summary, lastTimestamp: refs.at(-1)?.timestamp, loaded: true },
      };
      return new SessionFile(parts, options);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      lock.release();
      throw error;
    }
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
    this.assertWritable();
    const durable = options.durable === true || entry.type === "turn_end";
    const { appender } = this.parts;
    appender.settle();
    this.verifyOwnership(durable);
    if (appender.needsRepair) {
      const issue = appender.repairTail();
      if (issue !== undefined) this.parts.issues.push(issue);
    }
    const stored = this.complete(entry);
    // A turn end records what the branch leaves behind, so a later load can start there.
    if (stored.type === "turn_end" && !("state" in stored)) (stored as unknown as { state: BranchSummary }).state = this.summary();
    const line = serializeEntry(stored);
    const { offset, length } = appender.appendLine(line, durable);
    const ref: EntryRef = { type: stored.type, id: stored.id, parentId: stored.parentId, timestamp: stored.timestamp, offset, length, line: ++this.parts.lineCount };
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

  /** fsyncs what was appended so far. */
  sync(): void {
    this.assertWritable();
    this.parts.appender.sync();
  }

  /** Syncs, releases the lock and the descriptor. Idempotent. */
  close(): void {
    if (this.state === "closed") return;
    const wasOwned = this.state === "open";
    this.state = "closed";
    try {
      if (wasOwned) fdatasyncSync(this.parts.fd);
    } catch {
      // Nothing more can be done for those bytes here; the lock still goes.
    }
    closeSync(this.parts.fd);
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
    if (stats.size !== this.parts.appender.size) this.lose(`the file was changed by another writer (${stats.size} bytes, expected ${this.parts.appender.size})`);
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
