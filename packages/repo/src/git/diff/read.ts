import { attachItemJson } from "@knightcode/system/util/item-json";
import { addIntentToAdd, git, listUntracked } from "./context.js";
import { withIndexCopy } from "../ops/index-copy.js";
import type { GitContext } from "../ops/context.js";
import { commitSides, headOrEmpty, resolveBranchBase } from "./base.js";
import type { ReadShape } from "./hunk-id.js";
import { DiffInputError } from "./errors.js";
import { DiffReader } from "./parse.js";
import { changedPaths, pathsChangedSince, type TurnTrees } from "./snapshot.js";
import { DIFF_BUDGET, type Comparison, type DiffAnswer, type DiffBudget, type DiffScope, type FilePatch } from "./types.js";

export const DEFAULT_CONTEXT = 3;

/** The scopes compared with the working tree, where untracked files show as added. */
const WORKTREE_SCOPES = new Set<DiffScope>(["uncommitted", "unstaged", "branch"]);

/** What `thread/diff/read` asks, plus what the thread knows: its worktree's base and its last turn's trees. */
export interface DiffRequest {
  scope?: DiffScope;
  against?: string;
  commit?: string;
  context?: number;
  ignoreWhitespace?: boolean;
  /** A worktree thread's base: the `branch` scope's comparison when no `against` is given. */
  worktreeBase?: string;
  /** The thread's last turn with snapshots: the `lastTurn` scope. */
  lastTurn?: TurnTrees;
  /** lastTurn only: `lastTurn` holds this turn's trees rather than the last one's (none when it has no snapshots). */
  turnId?: string;
}

/** How an action reads, beside what a client sees: with binary data, within other limits. */
export interface ReadTuning {
  budget?: DiffBudget;
  /** Binary files' data in their sections, so a whole-file patch can restore them. */
  binary?: boolean;
  /**
   * The answer's files as JSON text too, made while git writes the rest and
   * attached to the answer (see attachItemJson): a large answer is then
   * written as it is joined instead of serialized whole at the end.
   */
  json?: boolean;
}

/** No limit but the untracked one: actions see every file a read could show. */
export const ACTION_BUDGET: DiffBudget = {
  maxFiles: Number.MAX_SAFE_INTEGER,
  maxFileBytes: Number.MAX_SAFE_INTEGER,
  maxTotalBytes: Number.MAX_SAFE_INTEGER,
  maxUntracked: DIFF_BUDGET.maxUntracked,
};

export interface DiffRead {
  answer: DiffAnswer;
  patches: FilePatch[];
}

/** The arguments of the one diff command a read runs. */
export function diffArgs(shape: ReadShape, binary: boolean): string[] {
  return [
    "diff",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--raw",
    "-p",
    "-z",
    "--no-abbrev",
    "--full-index",
    "-M",
    `-U${shape.context}`,
    "--inter-hunk-context=0",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    ...(shape.ignoreWhitespace ? ["--ignore-all-space"] : []),
    ...(binary ? ["--binary"] : []),
  ];
}

/**
 * Runs the diff a comparison needs and reads it. Against the working tree,
 * untracked files show as added: marked intent-to-add in an index copy,
 * unless there are more than the budget allows (then none are, and they
 * are counted). The user's index is never written.
 */
async function compare(
  ctx: GitContext,
  comparison: Comparison,
  shape: ReadShape,
  tuning: ReadTuning,
  untrackedFiles: () => Promise<Buffer[]>,
): Promise<{ patches: FilePatch[]; filesOmitted: number; untrackedSkipped: number }> {
  const budget = tuning.budget ?? DIFF_BUDGET;
  const args = diffArgs(shape, tuning.binary === true);
  // The output is read as git writes it: on a large change the reading overlaps git's work.
  const newReader = () => new DiffReader({ ...shape, budget, json: tuning.json === true });
  let reader = newReader();
  const onStdout = (chunk: Buffer) => reader.push(chunk);
  let untrackedSkipped = 0;
  switch (comparison.kind) {
    case "trees":
      await git(ctx, [...args, comparison.from, comparison.to, "--"], { onStdout });
      break;
    case "treeToIndex":
      await withIndexCopy(ctx, (index) => git(ctx, [...args, "--cached", comparison.base, "--"], { index, onStdout }));
      break;
    default: {
      const run = (index: string, into: DiffReader, base: readonly string[], signal?: AbortSignal) =>
        git(ctx, [...args, ...base, "--"], { index, onStdout: (chunk) => into.push(chunk), ...(signal ? { signal } : {}) });
      if (comparison.kind !== "worktree") {
        // An index copy of its own: git diff refreshes the index it reads, and one stopped halfway leaves its lock there.
        const early = newReader();
        const base = comparison.kind === "headToWorktree" ? ["HEAD"] : [];
        const listed = await withIndexCopy(ctx, (index) =>
          diffWhileListing(ctx, (signal) => run(index, early, base, signal), untrackedFiles, budget.maxUntracked),
        );
        if (listed !== undefined) {
          reader = early;
          untrackedSkipped = listed.untrackedSkipped;
          break;
        }
      }
      await withIndexCopy(ctx, async (index) => {
        const mark = async () => {
          const untracked = await untrackedFiles();
          if (untracked.length > budget.maxUntracked) untrackedSkipped = untracked.length;
          else await addIntentToAdd(ctx, index, untracked);
        };
        const base = async () => (comparison.kind === "worktree" ? [comparison.base] : comparison.kind === "headToWorktree" ? [await headOrEmpty(ctx)] : []);
        // HEAD is resolved while the untracked files are marked, as it was while they were listed before the diff started first.
        const [resolved] = await Promise.all([base(), mark()]);
        await run(index, reader, resolved);
      });
    }
  }
  return { ...reader.end(), untrackedSkipped };
}

/**
 * The diff started at once, beside the listing of untracked files, for a
 * comparison whose base git can name itself (HEAD, or none): a read with
 * no untracked file to mark, most of them, then waits for no other command
 * before it. Undefined when that diff cannot stand: there are untracked
 * files to mark, which change it (it is stopped), or it failed, as it does
 * while HEAD names no commit yet; the caller then reads the way it always
 * has. Only a failure of the listing, or a cancelled request, is thrown.
 */
async function diffWhileListing(
  ctx: GitContext,
  run: (signal: AbortSignal) => Promise<unknown>,
  untrackedFiles: () => Promise<Buffer[]>,
  maxUntracked: number,
): Promise<{ untrackedSkipped: number } | undefined> {
  const stop = new AbortController();
  const diff = run(ctx.signal ? AbortSignal.any([ctx.signal, stop.signal]) : stop.signal);
  diff.catch(() => undefined);
  let untracked: Buffer[];
  try {
    // Started after the diff: starting a process holds this thread for milliseconds, and the diff is the longer of the two.
    untracked = await untrackedFiles();
  } catch (error) {
    stop.abort();
    await diff.catch(() => undefined);
    throw error;
  }
  if (untracked.length > 0 && untracked.length <= maxUntracked) {
    stop.abort();
    await diff.catch(() => undefined);
    return undefined;
  }
  try {
    await diff;
  } catch (error) {
    if (ctx.signal?.aborted) throw error;
    return undefined;
  }
  return { untrackedSkipped: untracked.length > maxUntracked ? untracked.length : 0 };
}

/**
 * One scope's diff: the answer a client gets, and each file's patch for
 * the actions. Reads take no lock and never write the user's index.
 * Throws DiffInputError for a request that cannot be answered (no commit,
 * no branch to compare with), NotGitRepoError-free: the caller discovered
 * the repository.
 */
export async function readDiff(ctx: GitContext, request: DiffRequest, tuning: ReadTuning = {}): Promise<DiffRead> {
  const scope = request.scope ?? "uncommitted";
  if (scope !== "lastTurn" && request.turnId !== undefined) throw new DiffInputError("turnId goes with the lastTurn scope only");
  const shape: ReadShape = { context: request.context ?? DEFAULT_CONTEXT, ignoreWhitespace: request.ignoreWhitespace === true };
  const answer: DiffAnswer = { scope, root: ctx.repo.root, files: [] };
  // Listing untracked files walks the working tree: it runs while the comparison is resolved, or beside a diff that starts at once.
  let listing: Promise<Buffer[]> | undefined;
  const untracked = () => {
    if (listing === undefined) {
      listing = WORKTREE_SCOPES.has(scope) ? listUntracked(ctx) : Promise.resolve([]);
      listing.catch(() => undefined);
    }
    return listing;
  };
  if (scope === "branch") untracked();
  let comparison: Comparison;
  switch (scope) {
    case "uncommitted":
      comparison = { kind: "headToWorktree" };
      break;
    case "unstaged":
      comparison = { kind: "indexToWorktree" };
      break;
    case "staged":
      comparison = { kind: "treeToIndex", base: await headOrEmpty(ctx) };
      break;
    case "committed":
      comparison = { kind: "trees", ...(await commitSides(ctx, request.commit)) };
      break;
    case "branch": {
      const resolved = await resolveBranchBase(ctx, {
        ...(request.against !== undefined ? { against: request.against } : {}),
        ...(request.worktreeBase !== undefined ? { worktreeBase: request.worktreeBase } : {}),
      });
      answer.against = resolved.against;
      comparison = { kind: "worktree", base: resolved.base };
      break;
    }
    case "lastTurn": {
      const trees = request.lastTurn;
      if (request.turnId !== undefined) answer.turnId = request.turnId;
      if (!trees) return { answer, patches: [] };
      answer.turnId = trees.turnId;
      answer.stale = (await driftedPaths(ctx, trees, "after")).length > 0;
      comparison = { kind: "trees", from: trees.before, to: trees.after };
      break;
    }
  }
  const { patches, filesOmitted, untrackedSkipped } = await compare(ctx, comparison, shape, tuning, untracked);
  answer.files = patches.map((patch) => patch.file);
  if (filesOmitted > 0) answer.filesOmitted = filesOmitted;
  if (untrackedSkipped > 0) answer.untrackedSkipped = untrackedSkipped;
  if (tuning.json) attachItemJson(answer, "files", fileTexts(patches));
  return { answer, patches };
}

/** Each file's JSON text: made while it was read, or now for a file read without it. */
function fileTexts(patches: readonly FilePatch[]): string[] {
  return patches.map((patch) => patch.fileJson ?? JSON.stringify(patch.file));
}

/**
 * The paths a turn changed (all of them, or those of `only`) that are no
 * longer as its `side` tree has them: "after" for an undo (as the turn
 * left them), "before" for a reapply (as the turn found them).
 */
export async function driftedPaths(ctx: GitContext, trees: TurnTrees, side: "before" | "after", only?: readonly string[]): Promise<string[]> {
  const touched = new Set(only ?? (await changedPaths(ctx, trees.before, trees.after)));
  if (touched.size === 0) return [];
  return (await pathsChangedSince(ctx, trees[side])).filter((path) => touched.has(path));
}
