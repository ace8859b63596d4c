import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { setImmediate } from "node:timers/promises";
import { writeFileAtomicAsync } from "../fs/atomic-write.js";
import { NAME_MAX, TITLE_MAX } from "./title.js";
import type { ThreadHeader, TranscriptFacts } from "./transcript-scan.js";

export const INDEX_FILE = ".thread-index.json";
const INDEX_VERSION = 1;
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
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isText = (value: unknown, max: number): value is string => typeof value === "string" && value.length <= max;
const isOptionalText = (value: unknown, max: number) => value === undefined || isText(value, max);

/** Checks one record of the file; anything unexpected drops it, so its transcript is simply read again. */
function toIndexedFile(value: unknown): IndexedFile | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { size, mtimeMs, ino, id, cwd, createdAt, forkedFromId, title, name, scannedTo, anchor } = value as Record<string, unknown>;
  if (!isCount(size) || typeof mtimeMs !== "number" || !Number.isFinite(mtimeMs) || !isCount(ino)) return undefined;
  if (id === undefined) return { size, mtimeMs, ino };
  if (!isText(id, 256) || !isText(cwd, 64 * 1024) || !isText(createdAt, 64) || !isOptionalText(forkedFromId, 256)) return undefined;
  // Two UTF-16 units per code point at most: a longer cached title was not made by this code.
  if (!isOptionalText(title, 2 * TITLE_MAX) || !isOptionalText(name, 2 * NAME_MAX)) return undefined;
  if (!isCount(scannedTo) || scannedTo > size || !isText(anchor, 64)) return undefined;
  const header: ThreadHeader = forkedFromId === undefined ? { id, cwd, createdAt } : { id, cwd, createdAt, forkedFromId: forkedFromId as string };
  const facts: TranscriptFacts = { header, scannedTo, anchor };
  if (title !== undefined) facts.title = title as string;
  if (name !== undefined) facts.name = name as string;
  return { size, mtimeMs, ino, facts };
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
  try {
    const stats = await stat(path);
    if (!stats.isFile() || stats.size > MAX_INDEX_BYTES) return { files, replace: true };
    text = await readFile(path, "utf8");
  } catch (error) {
    return { files, replace: (error as NodeJS.ErrnoException).code !== "ENOENT" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { files, replace: true };
  }
  const { version, files: records } = (value ?? {}) as { version?: unknown; files?: unknown };
  if (version !== INDEX_VERSION || typeof records !== "object" || records === null || Array.isArray(records)) return { files, replace: true };
  let replace = false;
  for (const [name, record] of Object.entries(records)) {
    const file = isTranscriptName(name) ? toIndexedFile(record) : undefined;
    if (file === undefined) replace = true;
    else files.set(name, file);
  }
  return { files, replace };
}

function recordOf(file: IndexedFile): Record<string, unknown> {
  const { size, mtimeMs, ino, facts } = file;
  if (facts === undefined) return { size, mtimeMs, ino };
  const { header, title, name, scannedTo, anchor } = facts;
  return { size, mtimeMs, ino, ...header, title, name, scannedTo, anchor };
}

/** The file's text, or undefined when it would be too big to be read back. */
export function serializeIndex(files: ReadonlyMap<string, IndexedFile>): string | undefined {
  const records: Record<string, unknown> = {};
  for (const [name, file] of files) records[name] = recordOf(file);
  const text = JSON.stringify({ version: INDEX_VERSION, files: records });
  return Buffer.byteLength(text) > MAX_INDEX_BYTES ? undefined : text;
}

/**
 * Writes a folder's index in the background, after the current turn of the
 * event loop so that the listing answers first. Writes never overlap; one
 * asked for during another follows it with the newest state. Each replaces
 * the file at once (temporary file, then rename), so readers, in this
 * process or another, see the old index or the new one, never a mix; a
 * failure (a read-only folder, a full disk) only costs the cache.
 */
export class IndexWriter {
  private writing: Promise<void> | undefined;
  private wanted = false;

  constructor(
    private readonly dir: string,
    private readonly current: () => ReadonlyMap<string, IndexedFile>,
    private readonly onWritten: () => void,
  ) {}

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
    while (this.wanted) {
      this.wanted = false;
      await setImmediate();
      const text = serializeIndex(this.current());
      if (text === undefined) continue;
      try {
        await writeFileAtomicAsync(join(this.dir, INDEX_FILE), text, { mode: 0o600 });
        this.onWritten();
      } catch {
        // Best effort: the next change tries again.
      }
    }
  }
}
