import { existsSync, readdirSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { GitConflictError } from "../git/errors.js";
import { unregisterWorktree } from "./create.js";
import { WorktreeError } from "./errors.js";
import { contextFor } from "./git-trees.js";
import { readRecord, updateRecord, withRecordLock, type StoredWorktree, type WorktreeRecord } from "./record.js";
import { snapshotWorktree } from "./snapshot.js";

/**
 * Folders below the worktree's top that hold a `.git` (an initialized
 * submodule, a repository cloned inside it), relative to it; at most
 * `limit`. Links are not followed.
 */
export function nestedRepositories(path: string, limit = 20): string[] {
  const found: string[] = [];
  const pending = [path];
  while (pending.length > 0 && found.length < limit) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name === ".git") {
        if (dir !== path) found.push(relative(path, dir).split(sep).join("/"));
      } else if (entry.isDirectory()) {
        pending.push(join(dir, entry.name));
      }
    }
  }
  return found.sort();
}

export interface DeleteWorktreeOptions {
  /** A thread is loaded there: the worktree stays (gitConflict worktreeInUse). */
  inUse(path: string): boolean;
  /** Runs before the snapshot (an environment's cleanup script); its failure does not stop the deletion. */
  beforeDelete?(record: WorktreeRecord): Promise<void>;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

/**
 * Deletes a managed worktree after its snapshot, one deletion or restore
 * of it at a time across processes. Refused with gitConflict
 * `worktreeInUse` while a thread is loaded there and `submodules` while it
 * holds a nested repository; WorktreeError `invalidParams` when it is
 * already deleted. A worktree whose folder is already gone loses its
 * registration and keeps no snapshot. The record says `deleted` (with the
 * snapshot) before the folder goes, so a crash in between loses nothing.
 */
export async function deleteWorktree(found: StoredWorktree, options: DeleteWorktreeOptions): Promise<{ snapshot?: string }> {
  const { bucketDir } = found;
  return withRecordLock(bucketDir, async () => {
    const record = readRecord(bucketDir);
    if (!record) throw new WorktreeError("invalidParams", `${found.record.path} is not a managed worktree`);
    if (record.deleted) throw new WorktreeError("invalidParams", `the worktree ${record.path} is already deleted`);
    const { path } = record;
    if (options.inUse(path)) throw new GitConflictError("worktreeInUse", `a thread is loaded in ${path}; close it first`, { paths: [path] });
    const git = await contextFor([path, record.checkoutRoot], options.env);
    if (!existsSync(path)) {
      await unregisterWorktree(record.repoRoot, path, git);
      await updateRecord(bucketDir, (current) => void (current.deleted = true));
      return {};
    }
    const nested = nestedRepositories(path);
    if (nested.length > 0) throw new GitConflictError("submodules", `${path} holds nested repositories; it is never deleted`, { paths: nested });
    await options.beforeDelete?.(record).catch(() => undefined);
    const snapshot = await snapshotWorktree(path, basename(bucketDir), {
      ...(options.env ? { env: options.env } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    await updateRecord(bucketDir, (current) => {
      current.deleted = true;
      current.snapshot = snapshot.ref;
      current.head = snapshot.head;
    });
    await unregisterWorktree(record.repoRoot, path, git);
    return { snapshot: snapshot.ref };
  });
}
