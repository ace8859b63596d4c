import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { isDirectory } from "@knightcode/system/fs/is-directory";
import { isWithin, realTarget } from "@knightcode/system/fs/real-target";
import { hookPlacesOf, repositoriesAround, type HookPlaceOptions, type RepositoryShape } from "@knightcode/repo/git/hook-places";
import { settingsCodePaths, trustedProjectsAbove, type CodePathOptions } from "./code-paths.js";
import { projectBase } from "./layout.js";

export interface SandboxPathOptions extends HookPlaceOptions {
  /** The folder a sandboxed command may write: the thread's folder, or its worktree. */
  root: string;
  agentDir: string;
  /** What decides the code the thread's settings load; its `cwd` is the thread's folder (at or below `root`). */
  codePaths: CodePathOptions;
}

export interface SandboxControlPaths {
  /**
   * The git folders of the repository `root` is in (its own and the shared
   * one, real paths): a sandboxed `git add` or `git commit` writes there, so
   * they are writable beside `root`, with their control files kept below.
   */
  gitFolders: string[];
  /** Existing places to keep read-only, links resolved, none inside another: under `root` or its git folders. */
  readOnly: string[];
  /**
   * Control places under `root` that do not exist yet (a `.knightcode`
   * folder, a hooks folder, an extension a setting names): whoever creates
   * one changes what runs. Bind mounts cannot cover them; a caller may
   * create them first or refuse to run.
   */
  absent: string[];
}

/** Submodules nest; their git folders are looked for this deep and this many. */
const MAX_MODULE_DEPTH = 4;
const MAX_MODULES = 64;

/**
 * The places inside `root` whose files decide what later runs, for a
 * sandbox that lets commands write `root` but must keep these read-only:
 * the git folder's `hooks` and `config` (each submodule's too, and the
 * `.git` file of a linked worktree with the shared folder's `hooks` and
 * `config` even though they lie outside `root`), every hooks folder
 * `core.hooksPath` names and the files its stubs source, every
 * `.knightcode` folder from the thread's folder up to `root`, the agent
 * folder when it lies inside, and the code the settings load (imports
 * followed). Runs no git; a few stats and small reads, all bounded.
 */
export function sandboxControlPaths(options: SandboxPathOptions): SandboxControlPaths {
  const root = realTarget(options.root);
  const repos = repositoriesAround(root);
  const gitFolders = repos[0] === undefined ? [] : [...new Set([realTarget(repos[0].gitDir), realTarget(repos[0].commonDir)])];
  // A sandbox writes these: what decides what runs is kept in any of them.
  const writable = [root, ...gitFolders];
  const present = new Set<string>();
  const absent = new Set<string>();
  const keep = (real: string, always = false): void => {
    if (!always && !writable.some((folder) => isWithin(folder, real)) && !isWithin(real, root)) return;
    // A place holding the whole root makes all of it read-only: the root is what gets bound.
    const bound = isWithin(real, root) ? root : real;
    (existsSync(bound) ? present : absent).add(bound);
  };
  const place = (path: string, always = false): void => keep(realTarget(path), always);
  for (const repo of repos) {
    gitFiles(repo, place);
    for (const hook of hookPlacesOf(repo, options)) place(hook.path);
  }
  const cwd = realTarget(options.codePaths.cwd);
  for (let folder = cwd; isWithin(root, folder); folder = dirname(folder)) {
    place(projectBase(folder));
    if (folder === root || dirname(folder) === folder) break;
  }
  if (isWithin(root, realTarget(options.agentDir))) place(options.agentDir);
  for (const code of settingsCodePaths(options.codePaths, trustedProjectsAbove(cwd, options.codePaths))) {
    if (!isWithin(root, code.path) && !isWithin(code.path, root)) continue;
    // An import a loader would only try is no place to keep: only what exists, or what a setting names.
    if (code.via === "import" && !existsSync(code.path)) continue;
    keep(code.path);
  }
  const readOnly = outermost([...present]);
  return { gitFolders, readOnly, absent: outermost([...absent]).filter((path) => !readOnly.some((kept) => isWithin(kept, path))) };
}

/** sandboxControlPaths' existing places: what a sandbox binds read-only over a writable `root`. */
export function sandboxReadOnlyPaths(options: SandboxPathOptions): string[] {
  return sandboxControlPaths(options).readOnly;
}

/**
 * A repository's own control files: `hooks` and `config` of its git folder
 * and of the shared one, `config.worktree`, a `.git` file (which names the
 * git folder), and each submodule's `hooks` and `config`. A linked
 * worktree's shared files count even outside `root`: the worktree's
 * commands run the hooks and read the config from there.
 */
function gitFiles(repo: RepositoryShape, place: (path: string, always?: boolean) => void): void {
  const dotGit = join(repo.root, ".git");
  const linked = !isDirectory(dotGit);
  if (linked) place(dotGit);
  for (const folder of new Set([repo.gitDir, repo.commonDir])) {
    for (const name of ["hooks", "config", "config.worktree"]) {
      const path = join(folder, name);
      // A config.worktree that does not exist is read only when a setting says so; creating it is a config write anyway.
      if (existsSync(path) || name !== "config.worktree") place(path, linked && existsSync(path));
    }
  }
  submoduleGitDirs(join(repo.commonDir, "modules"), 1, { left: MAX_MODULES }, place);
}

/** Each submodule's git folder below `folder` (names may hold slashes, and submodules nest): its `hooks` and `config`. */
function submoduleGitDirs(folder: string, depth: number, budget: { left: number }, place: (path: string) => void): void {
  if (depth > MAX_MODULE_DEPTH) return;
  for (const name of listFolders(folder)) {
    if (budget.left-- <= 0) return;
    const path = join(folder, name);
    if (existsSync(join(path, "HEAD"))) {
      place(join(path, "hooks"));
      place(join(path, "config"));
      submoduleGitDirs(join(path, "modules"), depth + 1, budget, place);
    } else {
      submoduleGitDirs(path, depth + 1, budget, place);
    }
  }
}

/** The paths no other one holds, sorted: a place inside a kept folder is kept with it. */
function outermost(paths: string[]): string[] {
  return paths.sort().filter((path) => !paths.some((other) => other !== path && isWithin(other, path)));
}

function listFolders(folder: string): string[] {
  try {
    return readdirSync(folder).filter((name) => {
      try {
        return statSync(join(folder, name)).isDirectory();
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}
