import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { withFileLock } from "../fs/file-queue.js";
import { formatJson, readJsonFile } from "../fs/json-file.js";
import { bucketDirOf, isBucket, existingRealPath, recordPath } from "./layout.js";
import { isWithin } from "../fs/real-target.js";

/** One managed worktree as `<root>/<bucket>/worktree.json` keeps it. */
export interface WorktreeRecord {
  /** The worktree's folder: `<root>/<bucket>/<repository folder name>`. */
  path: string;
  /** The project folder its threads belong to: their transcripts' header cwd. */
  projectCwd: string;
  /** The root of the checkout it was made from. */
  checkoutRoot: string;
  /** The repository's shared git folder (objects, refs): what identifies the project's repository. */
  repoRoot: string;
  /** The base as it was asked for ("HEAD" unless a baseRef was given). */
  baseRef: string;
  /** The commit that base named. */
  baseSha: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601: the last time a thread loaded or started a turn there. Pruning deletes the oldest first. */
  lastUsedAt: string;
  /** Every thread that ran there, oldest first. */
  threadIds: string[];
  /** The environment whose cleanup script runs before deletion. */
  environment?: string;
  /** The folder and its registration are gone. */
  deleted: boolean;
  /** The ref of the snapshot taken before deletion. */
  snapshot?: string;
  /** The worktree's HEAD when the snapshot was taken. */
  head?: string;
}

/** A record and the bucket folder it sits in. */
export interface ManagedWorktree {
  bucketDir: string;
  record: WorktreeRecord;
}

const STRING_FIELDS = ["path", "projectCwd", "checkoutRoot", "repoRoot", "baseRef", "baseSha", "createdAt", "lastUsedAt"] as const;

/** The record in `bucketDir`, or undefined when there is none or it is not one this code wrote. */
export function readRecord(bucketDir: string): WorktreeRecord | undefined {
  let value: unknown;
  try {
    value = readJsonFile(recordPath(bucketDir)).value;
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (STRING_FIELDS.some((field) => typeof record[field] !== "string")) return undefined;
  if (!Array.isArray(record.threadIds) || !record.threadIds.every((id) => typeof id === "string")) return undefined;
  if (typeof record.deleted !== "boolean") return undefined;
  for (const field of ["environment", "snapshot", "head"]) if (record[field] !== undefined && typeof record[field] !== "string") return undefined;
  // A record names the worktree beside it and nothing else: a copied or edited one cannot point elsewhere.
  if (join(bucketDir, basename(record.path as string)) !== record.path) return undefined;
  return record as unknown as WorktreeRecord;
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
export function listRecords(root: string): ManagedWorktree[] {
  const real = existingRealPath(root);
  if (!real) return [];
  let names: string[];
  try {
    names = readdirSync(real);
  } catch {
    return [];
  }
  const found: ManagedWorktree[] = [];
  for (const name of names) {
    if (!isBucket(name)) continue;
    const bucketDir = join(real, name);
    const record = readRecord(bucketDir);
    if (record) found.push({ bucketDir, record });
  }
  return found;
}

/** The managed worktree holding `bucketDir`'s record, if it has one. */
export function managedAt(bucketDir: string): ManagedWorktree | undefined {
  const record = readRecord(bucketDir);
  return record ? { bucketDir, record } : undefined;
}

/** The managed worktree that `path` lies in (links resolved), under `root`. */
export function managedContaining(root: string, path: string): ManagedWorktree | undefined {
  const realRoot = existingRealPath(root);
  const real = existingRealPath(path);
  if (!realRoot || !real) return undefined;
  const bucketDir = bucketDirOf(realRoot, real);
  const found = bucketDir ? managedAt(bucketDir) : undefined;
  return found && isWithin(found.record.path, real) ? found : undefined;
}
