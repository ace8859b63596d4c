import { existsSync } from "node:fs";
import { join } from "node:path";
import { runGit } from "../run.js";
import { inRepo, type GitContext } from "./context.js";
import type { GitStatus } from "@knightcode/schema/git";

/** An operation git stopped in the middle of, waiting for the user to continue or abort it. */
export type GitOperation = NonNullable<GitStatus["operation"]>;

export type { GitStatus };

/**
 * The operation in progress in a working tree, from the markers git leaves
 * in its git folder (a linked worktree keeps its own). A rebase stopped on
 * a conflict also leaves a merge's markers, so it is asked about first.
 */
export function operationInProgress(gitDir: string): GitOperation | null {
  const has = (name: string) => existsSync(join(gitDir, name));
  if (has("rebase-merge") || has("rebase-apply")) return "rebase";
  if (has("MERGE_HEAD")) return "merge";
  if (has("CHERRY_PICK_HEAD")) return "cherryPick";
  if (has("REVERT_HEAD")) return "revert";
  if (has("BISECT_LOG")) return "bisect";
  return null;
}

/**
 * The checkout's status from `git status --porcelain=v2 --branch -z`, with
 * every untracked file counted (not only their folders). It runs with
 * optional locks off, so the index is never written, however stale.
 */
export async function readStatus(ctx: GitContext): Promise<GitStatus> {
  const { stdout } = await runGit(["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"], inRepo(ctx));
  const status: GitStatus = {
    branch: null,
    upstream: null,
    ahead: 0,
    behind: 0,
    staged: 0,
    unstaged: 0,
    untracked: 0,
    conflicted: 0,
    operation: operationInProgress(ctx.repo.gitDir),
  };
  const fields = stdout.toString("utf8").split("\0");
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    if (entry.startsWith("# branch.head ")) {
      const head = entry.slice("# branch.head ".length);
      status.branch = head === "(detached)" ? null : head;
    } else if (entry.startsWith("# branch.upstream ")) {
      status.upstream = entry.slice("# branch.upstream ".length);
    } else if (entry.startsWith("# branch.ab ")) {
      const match = /^# branch\.ab \+(\d+) -(\d+)$/.exec(entry);
      if (match) [status.ahead, status.behind] = [Number(match[1]), Number(match[2])];
    } else if (entry.startsWith("1 ") || entry.startsWith("2 ")) {
      if (entry[2] !== ".") status.staged++;
      if (entry[3] !== ".") status.unstaged++;
      // A rename's original path is the next field.
      if (entry.startsWith("2 ")) i++;
    } else if (entry.startsWith("u ")) {
      status.conflicted++;
    } else if (entry.startsWith("? ")) {
      status.untracked++;
    }
  }
  return status;
}

/** The unmerged paths of the index, relative to the root (read from the index, no file is looked at). */
export async function conflictedPaths(ctx: GitContext): Promise<string[]> {
  const { stdout } = await runGit(["ls-files", "--unmerged", "-z"], inRepo(ctx));
  const paths = stdout
    .toString("utf8")
    .split("\0")
    .map((entry) => entry.slice(entry.indexOf("\t") + 1))
    .filter((path) => path !== "");
  return [...new Set(paths)];
}
