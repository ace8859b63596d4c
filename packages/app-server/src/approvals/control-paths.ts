import { existsSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { hookPlaceOf } from "@knightcode/repo/git/hook-places";
import { isWithin, realTarget } from "@knightcode/system/fs/real-target";
import type { CodePath } from "@knightcode/agent/resources/code-paths";

/** What the verdict asks about places whose files decide what later commands and threads run. */
export interface ControlLookups {
  /** The agent folder: its settings, extensions and credentials apply to every thread. */
  agentDir?: string;
  /** The extension, import or package a path is loaded as, when it is one. */
  codePathOf?(path: string): CodePath | undefined;
  /**
   * The managed worktree the thread runs in. It sits in the agent folder by
   * default, yet its files are the project's: the agent folder's rule
   * leaves it out (the `.git` and `.knightcode` rules still hold there).
   */
  ownWorktree?: string;
}

/**
 * Folders whose files decide what later commands do: git runs hooks and
 * configured programs (`core.fsmonitor`, `core.pager`) from `.git/`, and
 * `.knightcode/` holds a project's settings and extensions. Hooks that
 * `core.hooksPath` moves elsewhere (husky's `.husky/`) are found per
 * repository by hookPlaceOf.
 */
const CONTROL_FOLDERS = [".git", ".knightcode"];

const CHANGES_WHAT_RUNS = "can change what later commands run";

/**
 * Why a write to `real` (links resolved) can change what later commands or
 * threads run, or undefined for an ordinary file. `inside` says whether it
 * lies in the workspace `realRoot` (links resolved too); the folder rules
 * only look inside.
 */
export function controlReason(realRoot: string, real: string, inside: boolean, lookups: ControlLookups): string | undefined {
  if (inside) {
    const segment = relative(realRoot, real)
      .split(sep)
      .find((part) => CONTROL_FOLDERS.includes(part.toLowerCase()));
    if (segment) return `writes into ${segment}/, whose files ${CHANGES_WHAT_RUNS}`;
    const gitDir = gitDirShapeAround(realRoot, real);
    if (gitDir) return `makes ${gitDir} a git repository by another name (HEAD with objects/ and refs/ or commondir), whose files ${CHANGES_WHAT_RUNS}`;
  }
  const hook = hookPlaceOf(real, [realRoot]);
  if (hook)
    return `writes ${hook.folder ? `into ${hook.path}, a folder of git hooks` : `${hook.path}, a file git's hooks run`} (${hook.why}), which ${CHANGES_WHAT_RUNS}`;
  const agentDir = lookups.agentDir === undefined ? undefined : realTarget(lookups.agentDir);
  const ownWorktree = lookups.ownWorktree === undefined ? undefined : realTarget(lookups.ownWorktree);
  if (agentDir !== undefined && isWithin(agentDir, real) && !(ownWorktree !== undefined && isWithin(ownWorktree, real))) {
    return `writes into the agent folder ${agentDir}, whose settings, extensions and credentials ${CHANGES_WHAT_RUNS}`;
  }
  const code = lookups.codePathOf?.(real);
  if (code) return `writes code this server loads into its threads (${describe(code)}), which ${CHANGES_WHAT_RUNS}`;
  return undefined;
}

function describe(code: CodePath): string {
  const what = code.folder ? `the extensions or package in ${code.path}` : `the module ${code.path}`;
  switch (code.via) {
    case "cli":
      return `${what}, given with -e`;
    case "import":
      return `${what}, imported by ${code.namedBy}`;
    case "settings":
      return `${what}, named by ${code.namedBy}`;
  }
}

/**
 * The folder between `real` and `root` that git would take for a
 * repository once this write is done: it holds `HEAD` and either `objects`
 * and `refs` or a `commondir` file, counting the file being written.
 * Whichever part is written last completes the shape and is caught, and so
 * is every later write below a folder of that shape. Names are compared
 * without case, as git on a case-insensitive disk would see them.
 */
function gitDirShapeAround(root: string, real: string): string | undefined {
  const lower = real.toLowerCase();
  for (let folder = dirname(real); isWithin(root, folder); folder = dirname(folder)) {
    const has = (name: string): boolean => {
      const path = join(folder, name);
      const written = path.toLowerCase();
      return lower === written || lower.startsWith(written + sep) || existsSync(path);
    };
    if (has("HEAD") && ((has("objects") && has("refs")) || has("commondir"))) return folder;
    if (folder === root || dirname(folder) === folder) break;
  }
  return undefined;
}
