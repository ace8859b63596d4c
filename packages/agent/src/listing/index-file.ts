import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { setImmediate } from "node:timers/promises";
import { writeFileAtomicAsync } from "../fs/atomic-write.js";
import type { WorkspaceState } from "../session/format.js";
import { NAME_MAX, TITLE_MAX } from "./title.js";
import { WORKSPACE_FIELD_MAX } from "./transcript-pass.js";
import type { ThreadHeader, TranscriptFacts } from "./transcript-scan.js";

export const INDEX_FILE = ".thread-index.json";
/**
 * `{"version":3,"cwds":[...],"files":{"<name>":record}}`. A transcript's
 * record is an array: size, mtimeMs, ino, its cwd (an index into `cwds`),
 * id, createdAt, scannedTo, anchor, title, name, forkedFromId, workspace,
 * with null for what is absent; any other file's is size, mtimeMs, ino.
 * `workspace` is itself an array: mode, cwd, path, baseRef, branch. Fewer
 * bytes than named fields, and one cwd string per project: the first
 * listing of a process reads, parses and checks the whole file.
 */
const INDEX_VERSION = 3;
/** A bigger index is not read (it would cost more than it saves) and not written. */
export const MAX_INDEX_BYTES = 16 * 1024 * 1024;

/** A transcript as the index knows it: the stat it was read at, and what was found (nothing for a file that is not a transcript). */
export interface IndexedFile {
  size: number;
  mtimeMs: number;
  ino: number;
  facts?: TranscriptFacts;
}

export interface LoadedIndex {
  files: Map<string, IndexedFile>;
  /** The file exists but could not be used whole: it should be replaced even if nothing changes. */
  replace: boolean;
  /** The index file that was read, to tell later whether someone rewrote it. */
  identity?: FileIdentity;
}

/** One version of the index file: another process that rewrites it makes another. */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

async function identityOf(path: string): Promise<FileIdentity | undefined> {
  try {
    const { ino, size, mtimeMs } = await stat(path);
    return { ino, size, mtimeMs };
  } catch {
    return undefined;
  }
}

const sameIdentity = (a: FileIdentity | undefined, b: FileIdentity | undefined) =>
  a !== undefined && b !== undefined && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isText = (value: unknown, max: number): value is string => typeof value === "string" && value.length <= max;
const isOptionalText = (value: unknown, max: number): value is string | null => value === null || isText(value, max);

/** Checks one record of the file; anything unexpected drops it, so its transcript is simply read again. */
function toIndexedFile(value: unknown, cwds: readonly string[]): IndexedFile | undefined {
  if (!Array.isArray(value)) return undefined;
  const [size, mtimeMs, ino, cwdAt, id, createdAt, scannedTo, anchor, title, name, forkedFromId, workspaceValue] = value as unknown[];
  if (!isCount(size) || typeof mtimeMs !== "number" || !Number.isFinite(mtimeMs) || !isCount(ino)) return undefined;
  if (value.length === 3) return { size, mtimeMs, ino };
  if (value.length !== 12 || !isCount(cwdAt) || cwdAt >= cwds.length) return undefined;
  const workspace = workspaceValue === null ? null : toWorkspace(workspaceValue);
  if (workspace === undefined) return undefined;
  if (!isCount(scannedTo) || scannedTo > size || !isText(anchor, 64)) return undefined;
  // Two UTF-16 units per code point at most: a longer cached title was not made by this code.
  if (!isOptionalText(title, 2 * TITLE_MAX) || !isOptionalText(name, 2 * NAME_MAX) || !isOptionalText(forkedFromId, 256)) return undefined;
  if (!isText(id, 256) || !isText(createdAt, 64)) return undefined;
  const header: ThreadHeader = { id, cwd: cwds[cwdAt]!, createdAt };
  if (forkedFromId !== null) header.forkedFromId = forkedFromId;
  const facts: TranscriptFacts = { header, scannedTo, anchor };
  if (title !== null) facts.title = title;
  if (name !== null) facts.name = name;
  if (workspace !== null) facts.workspace = workspace;
  return { size, mtimeMs, ino, facts };
}

/** A record's workspace array, checked; undefined when it is not one this code wrote. */
function toWorkspace(value: unknown): WorkspaceState | undefined {
  if (!Array.isArray(value) || value.length !== 5) return undefined;
  const [mode, cwd, path, baseRef, branch] = value as unknown[];
  if ((mode !== "local" && mode !== "worktree") || !isText(cwd, WORKSPACE_FIELD_MAX) || cwd === "") return undefined;
  if (![path, baseRef, branch].every((field) => isOptionalText(field, WORKSPACE_FIELD_MAX))) return undefined;
  const workspace: WorkspaceState = { mode, cwd };
  if (path !== null) workspace.path = path as string;
  if (baseRef !== null) workspace.baseRef = baseRef as string;
  if (branch !== null) workspace.branch = branch as string;
  return workspace;
}

function workspaceRecord(workspace: WorkspaceState | undefined): unknown[] | null {
  if (workspace === undefined) return null;
  return [workspace.mode, workspace.cwd, workspace.path ?? null, workspace.baseRef ?? null, workspace.branch ?? null];
}

function isTranscriptName(name: string): boolean {
  return name.endsWith(".jsonl") && !name.includes("/") && !name.includes("\\");
}

/**
 * Reads a folder's index. A missing, unreadable, corrupt, oversized or
 * foreign-version file gives an empty index; a record that does not check
 * out is dropped alone. Never throws: the index is only a cache.
 */
export async function loadIndex(dir: string): Promise<LoadedIndex> {
  const path = join(dir, INDEX_FILE);
  const files = new Map<string, IndexedFile>();
  let text: string;
  let identity: FileIdentity;
  let fd: number | undefined;
  try {
    // Sync: one open and one read instead of several trips through the thread pool, on the first listing's path.
    // Non-blocking, so that a FIFO in the index's place is refused rather than waited on.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_INDEX_BYTES) return { files, replace: true };
    identity = { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
    text = readFileSync(fd, "utf8");
  } catch (error) {
    return { files, replace: (error as NodeJS.ErrnoException).code !== "ENOENT" };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { files, replace: true, identity };
  }
  const { version, cwds, files: records } = (value ?? {}) as { version?: unknown; cwds?: unknown; files?: unknown };
  if (version !== INDEX_VERSION || typeof records !== "object" || records === null || Array.isArray(records)) return { files, replace: true, identity };
  if (!Array.isArray(cwds) || !cwds.every((cwd) => isText(cwd, 64 * 1024))) return { files, replace: true, identity };
  let replace = false;
  for (const name in records) {
    const file = isTranscriptName(name) ? toIndexedFile((records as Record<string, unknown>)[name], cwds as string[]) : undefined;
    if (file === undefined) replace = true;
    else files.set(name, file);
  }
  return { files, replace, identity };
}

function recordOf(file: IndexedFile, cwdAt: (cwd: string) => number): unknown[] {
  const { size, mtimeMs, ino, facts } = file;
  if (facts === undefined) return [size, mtimeMs, ino];
  const { header, title, name, scannedTo, anchor, workspace } = facts;
  return [size, mtimeMs, ino, cwdAt(header.cwd), header.id, header.createdAt, scannedTo, anchor, title ?? null, name ?? null, header.forkedFromId ?? null, workspaceRecord(workspace)];
}

/** The file's text, or undefined when it would be too big to be read back. */
export function serializeIndex(files: ReadonlyMap<string, IndexedFile>): string | undefined {
  const cwds: string[] = [];
  const cwdIndex = new Map<string, number>();
  const cwdAt = (cwd: string) => {
    let at = cwdIndex.get(cwd);
    if (at === undefined) cwdIndex.set(cwd, (at = cwds.push(cwd) - 1));
    return at;
  };
  const records: Record<string, unknown> = {};
  for (const [name, file] of files) records[name] = recordOf(file, cwdAt);
  const text = JSON.stringify({ version: INDEX_VERSION, cwds, files: records });
  return Buffer.byteLength(text) > MAX_INDEX_BYTES ? undefined : text;
}

/**
 * Writes a folder's index in the background, after the current turn of the
 * event loop so that the listing answers first. Writes never overlap; one
 * asked for during another follows it with the newest state. Each replaces
 * the file at once (temporary file, then rename), so readers, in this
 * process or another, see the old index or the new one, never a mix; a
 * failure (a read-only folder, a full disk) only costs the cache.
 *
 * Several processes may write one folder's index (two servers, a server
 * and a terminal session). Before each write, a file rewritten by someone
 * else since this process last read or wrote it is read again, and its
 * records are carried into ours: kept in the file, never trusted here (a
 * listing here only uses what it checked itself). A carried record gives
 * way to ours unless it describes the same file grown further. Rewrites
 * that cross can still lose a record; that only costs a read.
 */
export class IndexWriter {
  private writing: Promise<void> | undefined;
  private wanted = false;
  /** The index file as this process last read or wrote it. */
  private known: FileIdentity | undefined;
  private readonly carried = new Map<string, IndexedFile>();

  constructor(
    private readonly dir: string,
    private readonly current: () => ReadonlyMap<string, IndexedFile>,
    private readonly onWritten: () => void,
  ) {}

  /** The index file as the folder loaded it. */
  loaded(identity: FileIdentity | undefined): void {
    this.known = identity;
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

  /** Resolves once the file holds the state of the last schedule() (or that write failed). */
  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private async writeWhileWanted(): Promise<void> {
    const path = join(this.dir, INDEX_FILE);
    while (this.wanted) {
      this.wanted = false;
      await setImmediate();
      await this.carryForeign(path);
      const text = serializeIndex(this.merged());
      if (text === undefined) continue;
      try {
        await writeFileAtomicAsync(path, text, { mode: 0o600 });
        this.known = await identityOf(path);
        this.onWritten();
      } catch {
        // Best effort: the next change tries again.
      }
    }
  }

  /**
   * Takes in the records of an index file someone else wrote since this
   * process last read or wrote it; a record of a transcript this process
   * does not know is taken only while the transcript exists.
   */
  private async carryForeign(path: string): Promise<void> {
    const identity = await identityOf(path);
    if (identity === undefined || sameIdentity(identity, this.known)) return;
    const { files } = await loadIndex(this.dir);
    const ours = this.current();
    for (const [name, file] of files) if (ours.has(name) || existsSync(join(this.dir, name))) this.carried.set(name, file);
    this.known = identity;
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
