import { lstatSync } from "node:fs";
import { join } from "node:path";
import { GitCommandError, GitConflictError } from "../errors.js";
import { gitText, runGit } from "../run.js";
import { inRepo, commitOf, currentBranch, emptyTree, NO_HOOKS, type GitContext } from "./context.js";
import { GitRequestError } from "./errors.js";
import { operationInProgress } from "./status.js";

export interface BranchInfo {
  name: string;
  /** The commit it points at. */
  head: string;
  /** Its upstream as `<remote>/<branch>`, when it has one. */
  upstream?: string;
  /** HEAD is on it. */
  current: boolean;
}

/** The local branches, the most recently committed to first, and the branch HEAD is on (null when detached). */
export async function listBranches(ctx: GitContext): Promise<{ current: string | null; branches: BranchInfo[] }> {
  const current = await currentBranch(ctx);
  const listed = await gitText(
    ["for-each-ref", "--sort=-committerdate", "--format=%(refname)%00%(objectname)%00%(upstream:short)", "refs/heads/"],
    inRepo(ctx),
  );
  const branches: BranchInfo[] = [];
  // A ref name holds no control character, so a line is a branch.
  for (const line of listed.split("\n")) {
    const [ref, head, upstream] = line.split("\0");
    if (!ref?.startsWith("refs/heads/") || !head) continue;
    const name = ref.slice("refs/heads/".length);
    branches.push({ name, head, ...(upstream ? { upstream } : {}), current: name === current });
  }
  return { current, branches };
}

/** Refuses a name git would not take as a new branch's (or would read as something else: `@`, `@{-1}`). */
export async function requireBranchName(ctx: GitContext, name: string): Promise<void> {
  const checked = await runGit(["check-ref-format", "--branch", name], inRepo(ctx, { okCodes: [128, 1] }));
  if (name === "@" || name.startsWith("-") || checked.code !== 0 || checked.stdout.toString("utf8").trim() !== name) {
    throw new GitRequestError(`${JSON.stringify(name)} is not a valid branch name`);
  }
}

async function branchExists(ctx: GitContext, name: string): Promise<boolean> {
  return (await runGit(["show-ref", "--verify", "--quiet", `refs/heads/${name}`], inRepo(ctx, { okCodes: [1] }))).code === 0;
}

/**
 * "Create branch here": a new branch at HEAD, checked out at once; the
 * working tree and the index stay as they are (a detached worktree gets
 * its branch this way). An existing name is `gitConflict` `branchExists`.
 */
export async function createBranch(ctx: GitContext, name: string): Promise<{ branch: string; head: string | null }> {
  await requireBranchName(ctx, name);
  const exists = () =>
    new GitConflictError("branchExists", `a branch named ${name} exists already`, { recoveryInstructions: "Choose another name, or switch to that branch." });
  if (await branchExists(ctx, name)) throw exists();
  try {
    await runGit(["switch", "--quiet", "--create", name], inRepo(ctx, { readOnly: false, config: NO_HOOKS }));
  } catch (error) {
    if (error instanceof GitCommandError && /already exists/.test(error.stderr)) throw exists();
    throw error;
  }
  return { branch: name, head: (await commitOf(ctx, "HEAD")) ?? null };
}

function nulList(text: string): string[] {
  return text.split("\0").filter((entry) => entry !== "");
}

/** Paths with a staged or unstaged change (both sides of a rename). */
async function changedPaths(ctx: GitContext): Promise<Set<string>> {
  const fields = nulList(await gitText(["status", "--porcelain=v2", "-z", "--untracked-files=no", "--ignore-submodules=all"], inRepo(ctx)));
  const paths = new Set<string>();
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    const parts = entry.split(" ");
    if (entry.startsWith("1 ")) paths.add(parts.slice(8).join(" "));
    else if (entry.startsWith("2 ")) {
      paths.add(parts.slice(9).join(" "));
      paths.add(fields[++i]!);
    } else if (entry.startsWith("u ")) paths.add(parts.slice(10).join(" "));
  }
  return paths;
}

/** Whether anything is on disk at `path` under `root`, or a file stands where one of its folders would be. */
function occupied(root: string, path: string): boolean {
  const parts = path.split("/");
  for (let depth = 1; depth <= parts.length; depth++) {
    let stat;
    try {
      stat = lstatSync(join(root, ...parts.slice(0, depth)));
    } catch {
      return false;
    }
    if (depth === parts.length || !stat.isDirectory()) return true;
  }
  return false;
}

/**
 * What a switch to `target` would overwrite: local changes (staged or not)
 * to files that differ between HEAD and the target, and files on disk that
 * the index does not track where the target has a file. git refuses to
 * overwrite untracked files but replaces ignored ones without a word, so
 * both are looked for here.
 */
async function switchWouldOverwrite(ctx: GitContext, target: string): Promise<string[]> {
  const from = (await commitOf(ctx, "HEAD")) ?? (await emptyTree(ctx));
  const differing = nulList(
    await gitText(["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--ignore-submodules=all", from, target], inRepo(ctx)),
  );
  const changed = await changedPaths(ctx);
  const blocked = new Set(differing.filter((path) => changed.has(path)));
  const tracked = new Set(nulList(await gitText(["ls-files", "-z", "--cached"], inRepo(ctx))));
  for (const path of nulList(await gitText(["ls-tree", "-r", "-z", "--name-only", "--full-tree", target], inRepo(ctx)))) {
    if (!tracked.has(path) && occupied(ctx.repo.root, path)) blocked.add(path);
  }
  return [...blocked].sort();
}

/** The paths git lists after "would be overwritten by checkout:" (tab-indented), if it refused that way. */
function pathsGitRefused(stderr: string): string[] | undefined {
  if (!/would be (overwritten|removed) by checkout/.test(stderr)) return undefined;
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("\t"))
    .map((line) => line.trim());
}

/**
 * Checks out the local branch `name`, carrying local changes along as git
 * does. Refused, with nothing changed: during a merge, rebase, cherry-pick,
 * revert or bisect (`operationInProgress`), and when it would overwrite a
 * local change or a file on disk the index does not track, ignored files
 * included (`localChanges` with the paths). An unknown branch, or one
 * checked out in another worktree, is a GitRequestError.
 */
export async function switchBranch(ctx: GitContext, name: string): Promise<{ branch: string; head: string }> {
  if (name === "@" || name.startsWith("-")) throw new GitRequestError(`${JSON.stringify(name)} is not a valid branch name`);
  const target = await commitOf(ctx, `refs/heads/${name}`);
  if (target === undefined) throw new GitRequestError(`there is no local branch named ${name}`);
  const operation = operationInProgress(ctx.repo.gitDir);
  if (operation !== null) {
    throw new GitConflictError("operationInProgress", `a ${operation} is in progress`, { recoveryInstructions: `Finish or abort the ${operation} first.` });
  }
  if ((await currentBranch(ctx)) === name) return { branch: name, head: target };
  const blocked = await switchWouldOverwrite(ctx, target);
  const refuse = (paths: string[]) =>
    new GitConflictError("localChanges", `switching to ${name} would overwrite local changes or files git does not track`, {
      paths,
      recoveryInstructions: "Commit or stash these changes, or move these files away, then switch again.",
    });
  if (blocked.length > 0) throw refuse(blocked);
  try {
    await runGit(["switch", "--quiet", "--no-guess", name], inRepo(ctx, { readOnly: false, config: NO_HOOKS }));
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    const refused = pathsGitRefused(error.stderr);
    if (refused) throw refuse(refused);
    if (/already (checked out|used by worktree) at/.test(error.stderr))
      throw new GitRequestError(`branch ${name} is checked out in another worktree: ${error.stderr.trim()}`);
    throw error;
  }
  return { branch: name, head: target };
}
