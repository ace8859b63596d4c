import { existsSync } from "node:fs";
import { GitConflictError } from "../git/errors.js";
import { WorktreeError } from "./errors.js";
import { listRecords, type StoredWorktree } from "./record.js";
import { deleteWorktree, type DeleteWorktreeOptions } from "./remove.js";

export interface PruneOptions extends DeleteWorktreeOptions {
  root: string;
  /** How many worktrees stay (`worktrees.keep`). */
  keep: number;
  /** Told of each worktree that could not be deleted for another reason than being in use or holding a repository. */
  onError?(worktree: StoredWorktree, error: unknown): void;
}

/**
 * Deletes managed worktrees past `keep`, least recently used first, each
 * after its snapshot. Those a thread is loaded in, or that hold a nested
 * repository, are skipped (and still count). Answers the paths deleted.
 */
export async function pruneWorktrees(options: PruneOptions): Promise<string[]> {
  const live = listRecords(options.root)
    .filter(({ record }) => !record.deleted && existsSync(record.path))
    .sort((a, b) => Date.parse(a.record.lastUsedAt) - Date.parse(b.record.lastUsedAt) || (a.record.path < b.record.path ? -1 : 1));
  let excess = live.length - options.keep;
  const deleted: string[] = [];
  for (const worktree of live) {
    if (excess <= 0) break;
    try {
      await deleteWorktree(worktree, options);
      deleted.push(worktree.record.path);
      excess--;
    } catch (error) {
      // Deleted (or forgotten) by another process meanwhile: it no longer counts.
      if (error instanceof WorktreeError) excess--;
      else if (!(error instanceof GitConflictError && (error.reason === "worktreeInUse" || error.reason === "submodules"))) options.onError?.(worktree, error);
    }
  }
  return deleted;
}
