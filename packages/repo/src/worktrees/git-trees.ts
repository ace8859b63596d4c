import { existsSync } from "node:fs";
import { withIndexAt } from "../git/ops/index-copy.js";
import { GitCommandError, GitConflictError } from "../git/errors.js";
import { gitText, noUserCodeConfig, runGit } from "../git/run.js";

/**
 * How the worktree code runs git: the server's environment, and the
 * command-line configuration that switches off hooks and filter drivers
 * (noUserCodeConfig), so that creating, snapshotting and rebuilding a
 * worktree runs no code the repository or the user chose.
 */
export interface WorktreeGit {
  env?: NodeJS.ProcessEnv;
  config: readonly (readonly [string, string])[];
}

/** runGit for a command that writes (objects, an index, refs), in `cwd`, under the context. */
export function gitWrite(
  args: readonly string[],
  cwd: string,
  git: WorktreeGit,
  more: { indexFile?: string; input?: string | Buffer; okCodes?: number[] } = {},
) {
  return runGit(args, {
    cwd,
    ...(git.env ? { env: git.env } : {}),
    config: git.config,
    readOnly: false,
    ...(more.indexFile ? { extraEnv: { GIT_INDEX_FILE: more.indexFile } } : {}),
    ...(more.input !== undefined ? { input: more.input } : {}),
    ...(more.okCodes ? { okCodes: more.okCodes } : {}),
  });
}

/** One line of git's output (a commit or tree id), trimmed. */
export async function gitLine(args: readonly string[], cwd: string, git: WorktreeGit, indexFile?: string): Promise<string> {
  const text = await gitText(args, {
    cwd,
    ...(git.env ? { env: git.env } : {}),
    config: git.config,
    ...(indexFile ? { extraEnv: { GIT_INDEX_FILE: indexFile } } : {}),
  });
  return text.trim();
}

/** The two trees of a working tree's uncommitted state. */
export interface StateTrees {
  /** What is staged: the index as a tree. */
  index: string;
  /** The files as they are, untracked ones included and ignored ones left out. */
  work: string;
}

/**
 * The staged and the working state of the working tree at `root` (whose
 * git folder is `gitDir`) as trees, written to the object store through
 * private index copies: the user's index is not touched. Unresolved
 * conflicts cannot be a tree: gitConflict `localChanges` with their paths.
 */
export async function stateTrees(root: string, gitDir: string, git: WorktreeGit): Promise<StateTrees> {
  const index = await withIndexAt(gitDir, async (file) => {
    const unmerged = (await gitWrite(["ls-files", "--unmerged", "-z"], root, git, { indexFile: file })).stdout.toString("utf8");
    if (unmerged !== "") {
      const paths = [
        ...new Set(
          unmerged
            .split("\0")
            .filter(Boolean)
            .map((line) => line.slice(line.indexOf("\t") + 1)),
        ),
      ];
      throw new GitConflictError("localChanges", `${root} has unresolved conflicts; resolve them first`, { paths });
    }
    return gitLine(["write-tree"], root, git, file);
  });
  const work = await withIndexAt(gitDir, async (file) => {
    await gitWrite(["add", "--all", "--", "."], root, git, { indexFile: file });
    return gitLine(["write-tree"], root, git, file);
  });
  return { index, work };
}

/**
 * `tree` moved from `from` onto `onto`: the changes between `from` and
 * `tree` applied to `onto`'s tree as a patch (binary included), in a
 * private index. Changes that do not apply there: gitConflict
 * `patchFailed` with git's words.
 */
export async function carryOnto(tree: string, from: string, onto: string, cwd: string, git: WorktreeGit): Promise<string> {
  const patch = (
    await runGit(["diff", "--binary", "--full-index", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames", from, tree, "--"], {
      cwd,
      ...(git.env ? { env: git.env } : {}),
      config: git.config,
    })
  ).stdout;
  if (patch.length === 0) return gitLine(["rev-parse", `${onto}^{tree}`], cwd, git);
  return withIndexAt(undefined, async (file) => {
    await gitWrite(["read-tree", onto], cwd, git, { indexFile: file });
    try {
      await gitWrite(["apply", "--cached", "--whitespace=nowarn"], cwd, git, { indexFile: file, input: patch });
    } catch (error) {
      if (!(error instanceof GitCommandError) || error.gitMissing) throw error;
      throw new GitConflictError("patchFailed", `the checkout's uncommitted changes do not apply to ${onto}`, { output: error.stderr });
    }
    return gitLine(["write-tree"], cwd, git, file);
  });
}

/**
 * Fills the freshly added (unchecked-out) worktree at `path`: its files
 * from `work`, its index from `index`, so what was staged is staged again
 * and what was untracked is untracked again. Filters and hooks stay off.
 */
export async function populate(path: string, trees: StateTrees, git: WorktreeGit): Promise<void> {
  await gitWrite(["read-tree", "--reset", "-u", trees.work], path, git);
  if (trees.index !== trees.work) await gitWrite(["read-tree", trees.index], path, git);
  // The files now match the index where they should; record that, so status need not hash them all.
  await gitWrite(["update-index", "-q", "--refresh"], path, git, { okCodes: [1] });
}

/** The empty tree's id in this repository's hash. */
export function emptyTree(cwd: string, git: WorktreeGit): Promise<string> {
  return gitLine(["hash-object", "-t", "tree", "--stdin"], cwd, git);
}

/**
 * noUserCodeConfig read from the first of `cwds` that is still a working
 * tree of the repository (the checkout, the worktree). Should none be,
 * hooks still stay off; filters cannot run without a working tree to fill.
 */
export async function contextFor(cwds: readonly string[], env?: NodeJS.ProcessEnv): Promise<WorktreeGit> {
  for (const cwd of cwds) {
    if (!existsSync(cwd)) continue;
    try {
      return { ...(env ? { env } : {}), config: await noUserCodeConfig(cwd, env) };
    } catch {
      // Not a working tree any more; try the next.
    }
  }
  return { ...(env ? { env } : {}), config: [["core.hooksPath", "/dev/null"]] };
}
