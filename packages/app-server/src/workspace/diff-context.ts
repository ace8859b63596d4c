import { DiffInputError } from "@knightcode/repo/git/diff/errors";
import { discoverRepo } from "@knightcode/repo/git/repo";
import type { GitContext } from "@knightcode/repo/git/ops/context";
import { turnTreesKept, type TurnTrees } from "@knightcode/repo/git/diff/snapshot";
import { readBranchPage, type BranchCursor } from "@knightcode/store/session/read-page";
import type { SessionEntry, TurnFilesEntry } from "@knightcode/store/session/format";
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

/** Turns per page while walking the transcript back to an older turn: their bodies are passed over by prefix. */
const LOOKUP_PAGE_TURNS = 50;

/**
 * One turn of the thread by its id, for a lastTurn read of an older turn:
 * its trees, or undefined when it has no `turn_files` entry (outside git, a
 * turn still running, a snapshot that failed). A loaded branch is searched
 * in memory; otherwise the transcript is paged back from its end with the
 * turns' bodies read by prefix only, so the cost follows how far back the
 * turn is. An id that is no turn of the thread's branch, or trees `git gc`
 * collected (kept before every turn's were), are DiffInputError.
 */
export async function turnTreesOf(thread: LoadedThread, git: GitContext, turnId: string): Promise<TurnTrees | undefined> {
  await thread.changes.written();
  const last = thread.changes.lastTrees;
  if (last?.turnId === turnId) return last;
  const found = thread.file.isLoaded ? findTurn(thread.file.branch(), turnId) : await findTurnOnDisk(thread.file.path, turnId);
  if (!found.started) throw new DiffInputError(`turn ${turnId} is not a turn of thread ${thread.id}`);
  if (found.trees && !(await turnTreesKept(git, found.trees))) {
    throw new DiffInputError(`that turn's snapshot is no longer kept: turn ${turnId} ran before every turn's snapshots were kept, and git collected them`);
  }
  return found.trees;
}

interface FoundTurn {
  /** Whether the turn's start entry was met: the turn is one of the branch. */
  started: boolean;
  trees: TurnTrees | undefined;
}

/** Walks a stretch of the branch back to the turn's start; its files entry, written after its end, is met on the way. */
function findTurn(entries: readonly SessionEntry[], turnId: string): FoundTurn {
  let trees: TurnTrees | undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.type === "turn_start" && entry.id === turnId) return { started: true, trees };
    if (entry.type === "turn_files" && (entry as TurnFilesEntry).turnId === turnId) {
      const { before, after } = entry as TurnFilesEntry;
      trees ??= { turnId, before, after };
    }
  }
  return { started: false, trees };
}

async function findTurnOnDisk(path: string, turnId: string): Promise<FoundTurn> {
  let cursor: BranchCursor | undefined;
  let trees: TurnTrees | undefined;
  do {
    const page = await readBranchPage(path, { turns: LOOKUP_PAGE_TURNS, ...(cursor ? { cursor } : {}), skipTurnBody: () => true });
    const found = findTurn(page.entries, turnId);
    trees ??= found.trees;
    if (found.started) return { started: true, trees };
    cursor = page.next;
  } while (cursor);
  return { started: false, trees: undefined };
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
