import { DiffInputError } from "@knightcode/repo/git/diff/errors";
import { discoverRepo } from "@knightcode/repo/git/repo";
import type { GitContext } from "@knightcode/repo/git/ops/context";
import type { TurnTrees } from "@knightcode/repo/git/diff/snapshot";
import { rpcError } from "../rpc/errors.js";
import { gitRpcError } from "../git/errors.js";
import type { LoadedThread } from "../threads/loaded-thread.js";

/** The repository a thread's folder is in; NotGitRepoError outside one. */
export async function threadGit(thread: LoadedThread, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<GitContext> {
  return { repo: await discoverRepo(thread.cwd, env), env, ...(signal ? { signal } : {}) };
}

/** The thread's newest turn with snapshots (a `turn_files` entry on its branch), if any. */
export async function lastTurnTrees(thread: LoadedThread): Promise<TurnTrees | undefined> {
  // A turn that just completed is the last one once its snapshot is written.
  await thread.changes.written();
  if (thread.changes.lastTrees) return thread.changes.lastTrees;
  // Loaded since: its newest turn_files entry, once, from the transcript.
  await thread.file.loadBranch();
  const branch = thread.file.branch();
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!;
    if (entry.type === "turn_files") {
      const { turnId, before, after } = entry as unknown as TurnTrees;
      thread.changes.lastTrees ??= { turnId, before, after };
      return thread.changes.lastTrees;
    }
  }
  return undefined;
}

/** The diff engine's failures as the wire's errors: a request it cannot answer is invalidParams, git's own as gitRpcError maps them. */
export async function withDiffErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DiffInputError) throw rpcError("invalidParams", error.message);
    throw gitRpcError(error);
  }
}

/** The commit a worktree thread's worktree was made at: where its `branch` scope starts. */
export function worktreeBaseOf(thread: LoadedThread): { worktreeBase?: string } {
  const { place } = thread;
  return place.mode === "worktree" && place.baseRef !== undefined ? { worktreeBase: place.baseRef } : {};
}
