import { GitCommandError, GitConflictError } from "../errors.js";
import { runGit, gitText } from "../run.js";
import { inRepo, commitOf, emptyTree, firstLine, type GitContext } from "./context.js";
import { CommandRefusedError, GitRequestError } from "./errors.js";
import { withIndexCopy } from "./index-copy.js";
import { conflictedPaths, operationInProgress } from "./status.js";

/** What a commit will record, taken before anything is written: the commit is refused if the checkout moved away from it. */
export interface CommitPlan {
  /** HEAD's commit; undefined on a branch with no commit yet. */
  head: string | undefined;
  /** The tree the commit will record: the index's, with every change staged when `includeUnstaged`. */
  tree: string;
  /** The tree HEAD has (the empty tree without a commit): what the change is measured against. */
  base: string;
  includeUnstaged: boolean;
}

/** What a diff shown to the model may hold before its middle is cut. */
export const MAX_COMMIT_DIFF = 32 * 1024;
/** A patch longer than this is not read at all: its summary stands for it. */
const MAX_PATCH_READ = 16 * 1024 * 1024;
const DIFF_FLAGS = ["--no-ext-diff", "--no-textconv", "--no-color", "-M"];

/** The tree the index holds, with every change staged first when `includeUnstaged`; computed in a copy of the index. */
async function treeToCommit(ctx: GitContext, includeUnstaged: boolean): Promise<string> {
  return withIndexCopy(ctx, async (indexFile) => {
    const options = inRepo(ctx, { extraEnv: { GIT_INDEX_FILE: indexFile } });
    if (includeUnstaged) await runGit(["add", "--all"], options);
    return (await gitText(["write-tree"], options)).trim();
  });
}

/**
 * Plans a commit without writing anything the user sees. Unmerged files
 * refuse it (`gitConflict` `localChanges`: staging them would record the
 * conflict markers); a commit that would change nothing is a
 * GitRequestError, unless it concludes a merge.
 */
export async function planCommit(ctx: GitContext, includeUnstaged: boolean): Promise<CommitPlan> {
  const conflicted = await conflictedPaths(ctx);
  if (conflicted.length > 0) {
    throw new GitConflictError("localChanges", "these files have unresolved conflicts", {
      paths: conflicted,
      recoveryInstructions: "Resolve the conflicts in these files, stage them, then commit again.",
    });
  }
  const head = await commitOf(ctx, "HEAD");
  const base = head === undefined ? await emptyTree(ctx) : (await gitText(["rev-parse", `${head}^{tree}`], inRepo(ctx))).trim();
  const tree = await treeToCommit(ctx, includeUnstaged);
  if (tree === base && operationInProgress(ctx.repo.gitDir) !== "merge") {
    throw new GitRequestError(includeUnstaged ? "nothing to commit: the working tree has no changes" : "nothing to commit: no change is staged");
  }
  return { head, tree, base, includeUnstaged };
}

/**
 * The planned change as text for the model: a summary of every file, then
 * the patch, its middle cut past `max` bytes so both ends stay.
 */
export async function planDiff(ctx: GitContext, plan: CommitPlan, max = MAX_COMMIT_DIFF): Promise<string> {
  const summary = await gitText(["diff", ...DIFF_FLAGS, "--stat=120", "--summary", plan.base, plan.tree], inRepo(ctx));
  let patch: string;
  try {
    patch = await gitText(["diff", ...DIFF_FLAGS, plan.base, plan.tree], inRepo(ctx, { maxOutput: MAX_PATCH_READ }));
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    patch = "(the patch is too large to show; the summary above lists every file)";
  }
  return cutMiddle(`${summary.trimEnd()}\n\n${patch}`, max);
}

/** `text` within `max` UTF-16 units: its head and tail, with the cut said in between. */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.floor(max / 4);
  const head = max - tail;
  return `${text.slice(0, head)}\n[... ${text.length - head - tail} characters cut ...]\n${text.slice(text.length - tail)}`;
}

/** Files that differ between two trees. */
async function changedBetween(ctx: GitContext, from: string, to: string): Promise<string[]> {
  const listed = await gitText(["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", from, to], inRepo(ctx));
  return listed.split("\0").filter((path) => path !== "");
}

async function refuseIfMoved(ctx: GitContext, plan: CommitPlan, staged: boolean): Promise<void> {
  const head = await commitOf(ctx, "HEAD");
  if (head !== plan.head) {
    throw new GitConflictError("concurrentChange", "HEAD moved while the commit was prepared", {
      recoveryInstructions: "Look at the changes again and commit again.",
    });
  }
  const tree = await treeToCommit(ctx, plan.includeUnstaged && !staged);
  if (tree !== plan.tree) {
    throw new GitConflictError("concurrentChange", "the changes to commit changed while the commit was prepared", {
      paths: await changedBetween(ctx, plan.tree, tree),
      recoveryInstructions: staged
        ? "Every change is staged now. Look at the staged changes and commit again."
        : "Nothing was committed or staged. Look at the changes and commit again.",
    });
  }
}

export interface CommitResult {
  sha: string;
  /** The message as recorded (a commit-msg hook may have changed it). */
  message: string;
}

/**
 * Commits the plan with `message`, the user's hooks running: stages
 * everything first when planned so, and refuses with `concurrentChange`
 * when HEAD or the change moved since the plan. The caller holds the
 * checkout. A commit git or a hook refused is a CommandRefusedError.
 */
export async function commitPlan(ctx: GitContext, plan: CommitPlan, message: string): Promise<CommitResult> {
  await refuseIfMoved(ctx, plan, false);
  if (plan.includeUnstaged) {
    await runGit(["add", "--all"], inRepo(ctx, { readOnly: false }));
    // A file written between the check and the staging is caught here; the staging stays.
    await refuseIfMoved(ctx, plan, true);
  }
  try {
    await runGit(["commit", "--quiet", "--file=-"], inRepo(ctx, { readOnly: false, input: message }));
  } catch (error) {
    if (error instanceof GitCommandError && error.code !== null && !error.gitMissing) {
      throw new CommandRefusedError(`the commit was refused: ${firstLine(error.stderr)}`, error.stderr);
    }
    throw error;
  }
  const sha = (await commitOf(ctx, "HEAD"))!;
  const recorded = await gitText(["show", "-s", "--no-show-signature", "--format=%B", sha], inRepo(ctx));
  return { sha, message: recorded.replace(/\n+$/, "") };
}
