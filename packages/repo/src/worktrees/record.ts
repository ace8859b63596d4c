import { readdirSync } from "node:fs";
import { checker } from "@knightcode/schema/problems";
import { WorktreeRecord } from "@knightcode/schema/worktree-record";
import { basename, join } from "node:path";
import { writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import { withFileLock } from "@knightcode/system/fs/file-queue";
import { formatJson, readJsonFile } from "@knightcode/system/fs/json-file";
import { bucketDirOf, isBucket, existingRealPath, recordPath } from "./layout.js";
import { isWithin } from "@knightcode/system/fs/real-target";

/** One managed worktree as `<root>/<bucket>/worktree.json` keeps it. */
export type { WorktreeRecord };

const recordShape = checker(WorktreeRecord);

/** A record and the bucket folder it sits in. */
export interface StoredWorktree {
  bucketDir: string;
  record: WorktreeRecord;
}

/** The record in `bucketDir`, or undefined when there is none or it is not one this code wrote. */
export function readRecord(bucketDir: string): WorktreeRecord | undefined {
  let value: unknown;
  try {
    value = readJsonFile(recordPath(bucketDir)).value;
  } catch {
    return undefined;
  }
  if (!recordShape.check(value)) return undefined;
  // A record names the worktree beside it and nothing else: a copied or edited one cannot point elsewhere.
  if (join(bucketDir, basename(value.path)) !== value.path) return undefined;
  return value;
}

/** Writes a record whole, replacing the file at once. */
export function writeRecord(bucketDir: string, record: WorktreeRecord): void {
  writeFileAtomic(recordPath(bucketDir), formatJson(record), { durable: true, mode: 0o600 });
}

/**
 * Changes a record under its lock (two servers may share the root):
 * `change` gets the record as it is on disk now and edits it in place, or
 * returns false to leave the file alone. Undefined when there is no record.
 */
export async function updateRecord(bucketDir: string, change: (record: WorktreeRecord) => boolean | void): Promise<WorktreeRecord | undefined> {
  return withFileLock(recordPath(bucketDir), { purpose: "worktree" }, () => {
    const record = readRecord(bucketDir);
    if (!record) return undefined;
    if (change(record) !== false) writeRecord(bucketDir, record);
    return record;
  });
}

/** Runs `work` holding the record's lock: what deletes or rebuilds a worktree does so once at a time, across processes. */
export function withRecordLock<T>(bucketDir: string, work: () => Promise<T>, timeoutMs = 10 * 60_000): Promise<T> {
  return withFileLock(`${recordPath(bucketDir)}.work`, { purpose: "worktree", timeoutMs }, work);
}

/** Every record under `root`, in no particular order. */
export function listRecords(root: string): StoredWorktree[] {
  const real = existingRealPath(root);
  if (!real) return [];
  let names: string[];
  try {
    names = readdirSync(real);
  } catch {
    return [];
  }
  const found: StoredWorktree[] = [];
  for (const name of names) {
    if (!isBucket(name)) continue;
    const bucketDir = join(real, name);
    const record = readRecord(bucketDir);
    if (record) found.push({ bucketDir, record });
  }
  return found;
}

/** The managed worktree holding `bucketDir`'s record, if it has one. */
export function managedAt(bucketDir: string): StoredWorktree | undefined {
  const record = readRecord(bucketDir);
  return record ? { bucketDir, record } : undefined;
}

/** The managed worktree that `path` lies in (links resolved), under `root`. */
export function managedContaining(root: string, path: string): StoredWorktree | undefined {
  const realRoot = existingRealPath(root);
  const real = existingRealPath(path);
  if (!realRoot || !real) return undefined;
  const bucketDir = bucketDirOf(realRoot, real);
  const found = bucketDir ? managedAt(bucketDir) : undefined;
  return found && isWithin(found.record.path, real) ? found : undefined;
}
