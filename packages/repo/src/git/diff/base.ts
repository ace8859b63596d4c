import { commitOf, emptyTree } from "../ops/context.js";
import { git } from "./context.js";
import type { GitContext } from "../ops/context.js";
import { DiffInputError } from "./errors.js";

/** HEAD's commit, or the empty tree on a branch with no commit yet. */
export async function headOrEmpty(ctx: GitContext): Promise<string> {
  return (await commitOf(ctx, "HEAD")) ?? emptyTree(ctx);
}

/** The `committed` scope's two sides: the commit's first parent (the empty tree for a root commit) and the commit. */
export async function commitSides(ctx: GitContext, commit: string | undefined): Promise<{ from: string; to: string }> {
  if (commit === undefined) throw new DiffInputError("the committed scope needs commit");
  const to = await commitOf(ctx, commit);
  if (to === undefined) throw new DiffInputError(`commit ${commit} does not name a commit in this repository`);
  return { from: (await commitOf(ctx, `${to}^1`)) ?? (await emptyTree(ctx)), to };
}

export interface BranchBase {
  /** What the branch was compared with, as it is echoed: a ref name or what the client gave. */
  against: string;
  /** The merge base of that and HEAD. */
  base: string;
}

/** The upstream of the current branch, like `origin/main`, if it has one. */
async function upstream(ctx: GitContext): Promise<string | undefined> {
  const { code, stdout } = await git(ctx, ["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"], { okCodes: [128] });
  const name = stdout.toString("utf8").trim();
  return code === 0 && name !== "" ? name : undefined;
}

/** The default branch: where origin/HEAD points, else a local main or master. */
async function defaultBranch(ctx: GitContext): Promise<string | undefined> {
  const { code, stdout } = await git(ctx, ["symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"], { okCodes: [1, 128] });
  if (code === 0 && stdout.toString("utf8").trim() !== "") return stdout.toString("utf8").trim();
  for (const name of ["main", "master"]) if ((await commitOf(ctx, `refs/heads/${name}`)) !== undefined) return name;
  return undefined;
}

/**
 * What the `branch` scope compares the working tree with: the merge base of
 * HEAD and `against` when given, else the worktree's base (a worktree
 * thread's `baseRef`), else the branch's upstream, else the default branch.
 * Nothing to compare with, a name that is no commit, or no common history
 * is a DiffInputError.
 */
export async function resolveBranchBase(ctx: GitContext, options: { against?: string; worktreeBase?: string } = {}): Promise<BranchBase> {
  const head = await commitOf(ctx, "HEAD");
  if (head === undefined) throw new DiffInputError("HEAD has no commit yet: there is no branch to compare with");
  const against = options.against ?? options.worktreeBase ?? (await upstream(ctx)) ?? (await defaultBranch(ctx));
  if (against === undefined) throw new DiffInputError("there is no branch to compare with: give against (no upstream, origin/HEAD, main or master)");
  const target = await commitOf(ctx, against);
  if (target === undefined) throw new DiffInputError(`against: ${against} does not name a commit in this repository`);
  const { code, stdout } = await git(ctx, ["merge-base", head, target], { okCodes: [1] });
  if (code !== 0) throw new DiffInputError(`${against} has no history in common with HEAD`);
  return { against, base: stdout.toString("utf8").trim() };
}
