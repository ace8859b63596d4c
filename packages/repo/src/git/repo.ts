import { realpathSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { GitCommandError, NotGitRepoError } from "./errors.js";
import { recalled, remember } from "./repo-memo.js";
import { runGit } from "./run.js";

/** Where a folder sits in git: its working tree, its repository and the subfolder it is. */
export interface RepoInfo {
  /** The working tree's root, links resolved: every path a diff or a git method names is relative to it. */
  root: string;
  /** This working tree's git folder (`.git`, or `.git/worktrees/<name>` for a linked worktree). */
  gitDir: string;
  /** The repository's shared git folder: objects, refs, config. */
  commonDir: string;
  /** The folder asked about, relative to `root` with `/` separators; "" at the root. */
  prefix: string;
  /** The working tree is a linked worktree (not the main checkout). */
  linked: boolean;
}

/**
 * The working tree around `cwd`. A folder outside any working tree (no
 * repository, a bare repository, inside `.git`) throws NotGitRepoError;
 * git missing throws GitCommandError. An answer found before is used
 * again while what git's walk reads is unchanged (see repo-memo.ts): most
 * git requests of a thread would otherwise start git once more just to
 * find the same repository.
 */
export async function discoverRepo(cwd: string, env?: NodeJS.ProcessEnv): Promise<RepoInfo> {
  const known = await recalled(cwd);
  if (known !== undefined) return { ...known };
  const info = await askGit(cwd, env);
  await remember(cwd, info);
  return { ...info };
}

async function askGit(cwd: string, env: NodeJS.ProcessEnv | undefined): Promise<RepoInfo> {
  let lines: string[];
  try {
    const result = await runGit(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir", "--show-prefix"], { cwd, env });
    lines = result.stdout.toString("utf8").split("\n");
  } catch (error) {
    if (error instanceof GitCommandError && !error.gitMissing) throw new NotGitRepoError(`${cwd} is not inside a git repository`);
    throw error;
  }
  const [top, gitDir, commonDir, prefix] = lines;
  if (!top || !gitDir || !commonDir) throw new NotGitRepoError(`${cwd} is not inside a git working tree`);
  const root = realpathSync(top);
  const realGitDir = realpathSync(gitDir);
  const realCommon = realpathSync(commonDir);
  return { root, gitDir: realGitDir, commonDir: realCommon, prefix: (prefix ?? "").replace(/\/$/, ""), linked: realGitDir !== realCommon };
}

/**
 * A path a client named, as a path relative to the repository root with
 * `/` separators, or undefined when it leaves the root. Relative paths are
 * taken from the root (as every path of the protocol is).
 */
export function repoRelative(root: string, path: string): string | undefined {
  const rel = isAbsolute(path) ? relative(root, path) : relative(root, `${root}${sep}${path}`);
  if (rel === "" || rel === ".") return "";
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join("/");
}
