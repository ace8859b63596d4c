import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { realPathOf } from "../../fs/real-target.js";

/** The git folders a command in a work tree writes to: its own, and the shared one of a linked worktree. */
export interface GitFolders {
  /** `.git` of a checkout, or `<common>/worktrees/<id>` of a linked worktree. */
  gitDir: string;
  /** The repository's shared folder (objects, refs, config, hooks); the gitDir itself for a checkout. */
  commonDir: string;
}

const MAX_POINTER_BYTES = 4096;

/**
 * The git folders of the work tree around `folder`, found the way git
 * finds them (the nearest `.git` above, a folder or a `gitdir:` file, then
 * its `commondir`), without starting git: a sandboxed `git add` or
 * `git commit` must be able to write there. Real paths; undefined outside
 * a repository or when the pointers do not lead to folders.
 */
export function gitFoldersAround(folder: string): GitFolders | undefined {
  for (let at = resolve(folder); ; at = dirname(at)) {
    const dotGit = join(at, ".git");
    const kind = kindOf(dotGit);
    if (kind === "folder") return withCommon(realPathOf(dotGit));
    if (kind === "file") {
      const target = pointer(dotGit, "gitdir:");
      return target === undefined ? undefined : withCommon(realPathOf(resolve(at, target)));
    }
    if (dirname(at) === at) return undefined;
  }
}

function withCommon(gitDir: string): GitFolders | undefined {
  if (kindOf(gitDir) !== "folder") return undefined;
  const common = kindOf(join(gitDir, "commondir")) === "file" ? pointer(join(gitDir, "commondir"), "") : undefined;
  const commonDir = common === undefined ? gitDir : realPathOf(resolve(gitDir, common));
  return kindOf(commonDir) === "folder" ? { gitDir, commonDir } : undefined;
}

/** The path a small pointer file names after `prefix`, or undefined. */
function pointer(file: string, prefix: string): string | undefined {
  try {
    const text = readFileSync(file, "utf8").slice(0, MAX_POINTER_BYTES).split("\n")[0]!.trim();
    if (!text.startsWith(prefix)) return undefined;
    const path = text.slice(prefix.length).trim();
    return path === "" ? undefined : path;
  } catch {
    return undefined;
  }
}

function kindOf(path: string): "folder" | "file" | undefined {
  try {
    const info = statSync(path);
    return info.isDirectory() ? "folder" : info.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}
