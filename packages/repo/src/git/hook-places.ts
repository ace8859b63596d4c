import { readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { isDirectory } from "@knightcode/system/fs/is-directory";
import { isWithin, realTarget } from "@knightcode/system/fs/real-target";
import { expandHome, readConfigEntries } from "./config-file.js";

/** A working tree found on disk, without running git. */
export interface RepositoryShape {
  /** The working tree's root. */
  root: string;
  /** Its own git folder: `<root>/.git`, or the one a `.git` file names (a linked worktree, a submodule). */
  gitDir: string;
  /** The shared git folder: objects, refs, config and the default hooks. */
  commonDir: string;
}

/** A place git runs hooks from, or a file such a hook runs. */
export interface HookPlace {
  /** Absolute, links resolved. */
  path: string;
  folder: boolean;
  /** Why it decides what git runs, for the user. */
  why: string;
}

export interface HookPlaceOptions {
  /** Where `~` in config values points, and where the global config lives; the process's home by default. */
  home?: string;
  /** The environment naming other global or system config files; the process's by default. */
  env?: NodeJS.ProcessEnv;
}

/** Hook folders hold a handful of stubs; more is not a hook folder worth reading. */
const MAX_STUBS = 64;
const MAX_STUB_BYTES = 64 * 1024;
/** `$0`'s folder as hook stubs spell it, followed by the path they source or run from there. */
const FROM_HOOK_FOLDER = /(?:\$\(\s*dirname\s+(?:--\s+)?"?\$0"?\s*\)|\$\{0%\/\*\})((?:\/[^\s"'`;|&)$]*)?)/g;

/**
 * The working tree `folder` is the root of, read from its `.git` (a folder,
 * or a file naming one with `gitdir:` and maybe a `commondir`), or
 * undefined when it is none.
 */
export function repositoryAt(folder: string): RepositoryShape | undefined {
  const dotGit = join(folder, ".git");
  let isDir: boolean;
  try {
    const stats = statSync(dotGit);
    if (!stats.isDirectory() && !stats.isFile()) return undefined;
    isDir = stats.isDirectory();
  } catch {
    return undefined;
  }
  let gitDir = dotGit;
  if (!isDir) {
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(dotGit) ?? "")?.[1];
    if (named === undefined) return undefined;
    gitDir = resolve(folder, named);
  }
  const common = readSmall(join(gitDir, "commondir"))?.trim();
  return { root: folder, gitDir, commonDir: common ? resolve(gitDir, common) : gitDir };
}

/** Every working tree that holds `path`, nearest first: a nested repository and the ones around it. */
export function repositoriesAround(path: string): RepositoryShape[] {
  const found: RepositoryShape[] = [];
  for (let folder = resolve(path); ; folder = dirname(folder)) {
    const repo = repositoryAt(folder);
    if (repo) found.push(repo);
    if (dirname(folder) === folder) break;
  }
  return found;
}

/**
 * The config files git reads for this repository, any of which may set
 * `core.hooksPath`: system, global (`GIT_CONFIG_GLOBAL`, XDG, `~/.gitconfig`),
 * the repository's own and the worktree's.
 */
function configFiles(repo: RepositoryShape, home: string, env: NodeJS.ProcessEnv): string[] {
  const files = [env.GIT_CONFIG_SYSTEM ?? "/etc/gitconfig"];
  if (env.GIT_CONFIG_GLOBAL) files.push(env.GIT_CONFIG_GLOBAL);
  else files.push(join(env.XDG_CONFIG_HOME || join(home, ".config"), "git", "config"), join(home, ".gitconfig"));
  files.push(join(repo.commonDir, "config"), join(repo.gitDir, "config.worktree"));
  return files;
}

/**
 * Where git runs this repository's hooks from, and what those hooks pull in:
 * the default `hooks` folder of the common git folder, every folder a
 * `core.hooksPath` in any config file could name (relative ones from the
 * working tree's root, where git runs hooks), the parent of a hooks folder
 * named `_` (husky 9 keeps its stubs in `.husky/_` and runs the user's
 * hooks from `.husky`), and the files the stubs source or run relative to
 * their own folder (`$(dirname -- "$0")/_/husky.sh`, `${0%/*}/h`).
 * Reads a few config files (kept per version) and the stubs; runs no git.
 */
export function hookPlacesOf(repo: RepositoryShape, options: HookPlaceOptions = {}): HookPlace[] {
  const home = options.home ?? homedir();
  const env = options.env ?? process.env;
  const places: HookPlace[] = [{ path: realTarget(join(repo.commonDir, "hooks")), folder: true, why: `git runs ${repo.root}'s hooks from it` }];
  const folders: { path: string; why: string }[] = [];
  for (const file of configFiles(repo, home, env)) {
    for (const entry of readConfigEntries(file, home)) {
      if (entry.section !== "core" || entry.key !== "hookspath" || !entry.value) continue;
      const named = expandHome(entry.value, home);
      const path = realTarget(isAbsolute(named) ? named : resolve(repo.root, named));
      const why = `core.hooksPath in ${entry.file} makes git run ${repo.root}'s hooks from it`;
      folders.push({ path, why });
      if (basename(path) === "_") folders.push({ path: dirname(path), why: `the hook stubs in ${path} run the hooks in it (husky's layout)` });
    }
  }
  for (const folder of folders) places.push({ ...folder, folder: true });
  places.push(...sourcedByStubs(folders.map((folder) => folder.path)));
  return places;
}

/**
 * The files and folders the hooks in `folders` reach through `$0`'s folder,
 * and what those files reach in turn (`$0` is still the hook there).
 */
function sourcedByStubs(folders: readonly string[]): HookPlace[] {
  const out: HookPlace[] = [];
  const queue: { file: string; base: string }[] = [];
  for (const folder of folders) {
    for (const name of listNames(folder).slice(0, MAX_STUBS)) queue.push({ file: join(folder, name), base: folder });
  }
  const seen = new Set(queue.map((item) => item.file));
  for (let read = 0; queue.length > 0 && read < MAX_STUBS * 2; read++) {
    const { file, base } = queue.shift()!;
    for (const match of (readSmall(file) ?? "").matchAll(FROM_HOOK_FOLDER)) {
      const path = realTarget(join(base, match[1] ?? ""));
      if (seen.has(path)) continue;
      seen.add(path);
      const folder = (match[1] ?? "").endsWith("/") || isDirectory(path);
      // Inside a hooks folder it counts already; what it sources may not.
      if (!isWithinAny(folders, path)) out.push({ path, folder, why: `the hook ${file} runs it` });
      if (!folder) queue.push({ file: path, base });
    }
  }
  return out;
}

/** The hook place that holds `real` (links resolved), looking at every repository around it and around `alsoAround`. */
export function hookPlaceOf(real: string, alsoAround: readonly string[] = [], options: HookPlaceOptions = {}): HookPlace | undefined {
  const seen = new Set<string>();
  for (const start of [real, ...alsoAround]) {
    for (const repo of repositoriesAround(start)) {
      if (seen.has(repo.root)) continue;
      seen.add(repo.root);
      const place = hookPlacesOf(repo, options).find((candidate) => (candidate.folder ? isWithin(candidate.path, real) : candidate.path === real));
      if (place) return place;
    }
  }
  return undefined;
}

function isWithinAny(folders: readonly string[], path: string): boolean {
  return folders.some((folder) => isWithin(folder, path));
}

function listNames(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}

/** A small regular file's text; undefined for anything else. */
function readSmall(file: string): string | undefined {
  try {
    const stats = statSync(file);
    if (!stats.isFile() || stats.size > MAX_STUB_BYTES) return undefined;
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
