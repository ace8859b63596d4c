import { lstat, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { RepoInfo } from "./repo.js";

/**
 * What git's discovery reads, as it stood when a folder's repository was
 * found: checked again before the answer is used a second time.
 *
 * git finds a working tree by walking up from the folder to the first
 * `.git` it meets, then reads that `.git` (a folder, or a file naming a
 * linked worktree's folder) and the repository's configuration. The same
 * walk over the same entries gives the same answer, so a remembered
 * answer stands while:
 * - the folder still resolves to the same real path;
 * - no folder between it and the root has gained a `.git`;
 * - the root's `.git` is the same entry (a `.git` file also unchanged);
 * - the git folder is the same folder, and the configuration files that
 *   could make the tree bare or move it are unchanged.
 * Each is a `stat`, a few in all, against the process git would start.
 */
interface Remembered {
  info: RepoInfo;
  realCwd: string;
  marks: string;
}

/** Discoveries kept: a day's server meets a bounded number of folders; the oldest goes first past it. */
const MAX_REMEMBERED = 256;
const remembered = new Map<string, Remembered>();

/** The remembered answer for `cwd`, if everything it rests on is as it was; undefined otherwise (then discover again). */
export async function recalled(cwd: string): Promise<RepoInfo | undefined> {
  const entry = remembered.get(cwd);
  if (entry === undefined) return undefined;
  const [realCwd, marks] = await Promise.all([realpath(cwd).catch(() => undefined), marksOf(entry.realCwd, entry.info)]);
  if (realCwd === entry.realCwd && marks === entry.marks) return entry.info;
  remembered.delete(cwd);
  return undefined;
}

/** Keeps a discovery's answer with the marks it rests on; an answer whose marks cannot be read is not kept. */
export async function remember(cwd: string, info: RepoInfo): Promise<void> {
  const realCwd = await realpath(cwd).catch(() => undefined);
  const marks = realCwd === undefined ? undefined : await marksOf(realCwd, info);
  if (realCwd === undefined || marks === undefined) return;
  remembered.delete(cwd);
  remembered.set(cwd, { info, realCwd, marks });
  if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
}

/** Forgets every remembered discovery (tests, and a caller that knows the repositories moved). */
export function forgetRepos(): void {
  remembered.clear();
}

/** The marks as one string, or undefined when the walk no longer ends at the remembered root. */
async function marksOf(realCwd: string, info: RepoInfo): Promise<string | undefined> {
  const between = foldersBelowRoot(realCwd, info.root);
  if (between === undefined) return undefined;
  const [gained, dotGit, gitDir, ...config] = await Promise.all([
    Promise.all(between.map((folder) => mark(join(folder, ".git")))),
    mark(join(info.root, ".git")),
    mark(info.gitDir, false),
    mark(join(info.commonDir, "config")),
    mark(join(info.gitDir, "config.worktree")),
  ]);
  if (gained.some((found) => found !== "none") || dotGit === "none" || gitDir === "none") return undefined;
  return [dotGit, gitDir, ...config].join("|");
}

/** The folders from `realCwd` up to, not including, `root`; undefined when `realCwd` is not inside `root`. */
function foldersBelowRoot(realCwd: string, root: string): string[] | undefined {
  const folders: string[] = [];
  let folder = realCwd;
  while (folder !== root) {
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folders.push(folder);
    folder = parent;
  }
  return folders;
}

/**
 * An entry's identity: "none" when absent. A file's content counts (its
 * size and time); a folder's does not, since git rewrites files inside
 * `.git` on every index update and the folder's own time moves with them.
 */
async function mark(path: string, withContent = true): Promise<string> {
  try {
    const stats = await lstat(path, { bigint: true });
    const content = withContent && !stats.isDirectory() ? `:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}` : "";
    return `${stats.dev}:${stats.ino}:${stats.mode}${content}`;
  } catch {
    return "none";
  }
}
