import { randomUUID } from "node:crypto";
import { join, resolve } from "node:path";
import { SessionFileError } from "./errors.js";
import { SESSION_FORMAT_VERSION, serializeEntry, serializeHeader, type SessionEntry, type SessionHeader } from "./format.js";
import { assertThreadId, sessionFileName } from "./paths.js";
import { ensureDirectory, publishExclusive } from "./publish.js";
import { branchPath, readEntries } from "./read.js";
import { scanSession, type EntryRef, type SessionIssue } from "./scan.js";

export interface ForkOptions {
  /** The transcript to fork; only read, never locked or written. */
  source: string;
  /** The last entry to copy; the source's leaf by default; null copies no entry. */
  upToEntryId?: string | null;
  /** Folder of the new transcript. */
  dir: string;
  /** The new thread's project folder; the source's by default. */
  cwd?: string;
  /** The new thread id; a new UUID by default. */
  id?: string;
  now?: () => number;
}

export interface ForkResult {
  path: string;
  header: SessionHeader;
  /** Entries copied. */
  entries: number;
  /** Problems met in the source; unusable entries were left out of the copy. */
  issues: SessionIssue[];
}

/** Entries read and written per step: memory follows the batch, not the transcript. */
const BATCH = 512;

/**
 * Copies the branch root..upToEntryId into a new transcript whose header
 * names the source as `forkedFromId`. Entry ids are kept, so references
 * between entries (turn ids, compaction, labels) stay valid. The new file
 * appears whole or not at all; open it with SessionFile.open to own it.
 */
export async function forkSession(options: ForkOptions): Promise<ForkResult> {
  const id = options.id ?? randomUUID();
  assertThreadId(id);
  const source = resolve(options.source);
  const index = await scanSession(source);
  const leaf = options.upToEntryId === undefined ? index.leafId : options.upToEntryId;
  if (leaf !== null && !index.byId.has(leaf)) {
    throw new SessionFileError("notFound", `no entry ${leaf} in ${source}`, { path: source, entryId: leaf });
  }
  const branch = branchPath(index.byId, leaf);
  const now = options.now ?? Date.now;
  const header: SessionHeader = {
    type: "session",
    version: SESSION_FORMAT_VERSION,
    id,
    cwd: resolve(options.cwd ?? index.header.cwd),
    createdAt: new Date(now()).toISOString(),
    forkedFromId: index.header.id,
  };
  const dir = resolve(options.dir);
  ensureDirectory(dir);
  const path = join(dir, sessionFileName(header.createdAt, id));
  const issues = [...index.issues];
  let copied = 0;
  await publishExclusive(path, async (write) => {
    write(Buffer.from(`${serializeHeader(header)}\n`));
    let parentId: string | null = null;
    for (let at = 0; at < branch.length; at += BATCH) {
      const batch: EntryRef[] = branch.slice(at, at + BATCH);
      const read = await readEntries(source, batch);
      issues.push(...read.issues);
      const lines: string[] = [];
      for (const entry of read.entries) {
        if (entry === undefined) continue;
        // A left-out entry would orphan its child; the copy stays one chain.
        const kept: SessionEntry = entry.parentId === parentId ? entry : { ...entry, parentId };
        lines.push(serializeEntry(kept));
        parentId = entry.id;
      }
      if (lines.length > 0) write(Buffer.from(`${lines.join("\n")}\n`));
      copied += lines.length;
    }
  });
  return { path, header, entries: copied, issues };
}
