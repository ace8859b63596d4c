import { existsSync } from "node:fs";
import { basename, dirname } from "node:path";
import { GitConflictError } from "../git/errors.js";
import { discoverRepo } from "../git/repo.js";
import { noUserCodeConfig } from "../git/run.js";
import { unregisterWorktree } from "./create.js";
import { contextFor, gitLine, gitWrite, populate, stateTrees, type WorktreeGit } from "./git-trees.js";

/** Where snapshots are kept in the project's repository: `refs/knightcode/snapshots/<bucket>/<Unix ms>`. */
export const SNAPSHOT_REFS = "refs/knightcode/snapshots";

/** Snapshots are the server's own commits: a fixed identity, so no user configuration is needed or used. */
const IDENTITY = {
  GIT_AUTHOR_NAME: "KnightCode",
  GIT_AUTHOR_EMAIL: "knightcode@localhost",
  GIT_COMMITTER_NAME: "KnightCode",
  GIT_COMMITTER_EMAIL: "knightcode@localhost",
};

export interface Snapshot {
  /** The ref that keeps it. */
  ref: string;
  /** The worktree's HEAD when it was taken. */
  head: string;
}

/**
 * Keeps a worktree's whole state in its repository before it is deleted,
 * in the shape of a stash: a commit whose tree is the working files
 * (untracked ones included, ignored ones not) and whose parents are the
 * HEAD and a commit of the index. No hook, filter or signing runs.
 */
export async function snapshotWorktree(path: string, bucket: string, options: { env?: NodeJS.ProcessEnv; now?: () => number } = {}): Promise<Snapshot> {
  const env = options.env;
  const repo = await discoverRepo(path, env);
  const git: WorktreeGit = { ...(env ? { env } : {}), config: await noUserCodeConfig(path, env) };
  const head = await gitLine(["rev-parse", "--verify", "HEAD^{commit}"], path, git);
  const trees = await stateTrees(repo.root, repo.gitDir, git);
  const index = await commitTree(path, trees.index, [head], `index of ${path}`, git);
  const snapshot = await commitTree(path, trees.work, [head, index], `KnightCode snapshot of ${path}`, git);
  const now = (options.now ?? Date.now)();
  for (let attempt = 0; ; attempt++) {
    const ref = `${SNAPSHOT_REFS}/${bucket}/${now + attempt}`;
    // An empty old value: the ref must not exist yet, so two snapshots never share one.
    const made = await gitWrite(["update-ref", "--no-deref", ref, snapshot, ""], path, git, { okCodes: [128] });
    if (made.code === 0) return { ref, head };
    if (attempt >= 16) throw new Error(`cannot create ${ref}: ${made.stderr.trim()}`);
  }
}

async function commitTree(cwd: string, tree: string, parents: string[], message: string, git: WorktreeGit): Promise<string> {
  const args = ["commit-tree", "--no-gpg-sign", ...parents.flatMap((parent) => ["-p", parent]), "-m", message, tree];
  const out = await gitWrite(args, cwd, { ...git, env: { ...(git.env ?? process.env), ...IDENTITY } });
  return out.stdout.toString("utf8").trim();
}

export interface RestoreOptions {
  /** The checkout the worktree was made from: where the repository's configuration is read. */
  checkoutRoot: string;
  /** The repository's shared git folder. */
  repoRoot: string;
  /** Where the worktree was, and is rebuilt. */
  path: string;
  /** Its snapshot's ref. */
  snapshot: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Rebuilds a deleted worktree at its old path from its snapshot: detached
 * at the old HEAD, the working files and the staged state as they were.
 * gitConflict `worktreeMissing` when the snapshot is gone, `submodules`
 * when it holds a nested repository it could not keep, `localChanges` when
 * something else is at the path now. A failure leaves nothing behind.
 */
export async function restoreWorktree(options: RestoreOptions): Promise<void> {
  const { repoRoot, path, snapshot } = options;
  const env = options.env;
  const git = await contextFor([options.checkoutRoot], env);
  const inRepo = (args: string[]) => gitLine(["--git-dir", repoRoot, ...args], repoRoot, git);
  const commit = await inRepo(["rev-parse", "--verify", "--quiet", `${snapshot}^{commit}`]).catch(() => "");
  if (commit === "") throw new GitConflictError("worktreeMissing", `the snapshot ${snapshot} of ${path} is gone; fork the chat into a new worktree instead`);
  const [head, index, work] = await Promise.all([`${commit}^1`, `${commit}^2^{tree}`, `${commit}^{tree}`].map((rev) => inRepo(["rev-parse", "--verify", rev])));
  const lost = await nestedInSnapshot(repoRoot, head!, work!, git);
  if (lost.length > 0) throw new GitConflictError("submodules", `the snapshot of ${path} held nested repositories it could not keep`, { paths: lost });
  if (existsSync(path)) throw new GitConflictError("localChanges", `${path} exists again; move it away to restore the worktree there`, { paths: [path] });
  try {
    await gitWrite(["--git-dir", repoRoot, "worktree", "add", "--detach", "--no-checkout", path, head!], repoRoot, git);
    await populate(path, { index: index!, work: work! }, git);
  } catch (error) {
    await unregisterWorktree(repoRoot, path, git).catch(() => undefined);
    throw error;
  }
}

/** Gitlinks in the snapshot's files that its HEAD does not have: nested repositories whose contents a tree cannot hold. */
async function nestedInSnapshot(repoRoot: string, head: string, work: string, git: WorktreeGit): Promise<string[]> {
  const gitlinks = async (tree: string) => {
    const text = await gitLine(["--git-dir", repoRoot, "ls-tree", "-r", "-z", tree], repoRoot, git);
    return new Set(
      text
        .split("\0")
        .filter((line) => line.startsWith("160000 "))
        .map((line) => line.slice(line.indexOf("\t") + 1)),
    );
  };
  const [before, after] = await Promise.all([gitlinks(head), gitlinks(work)]);
  return [...after].filter((path) => !before.has(path));
}

/** The bucket a worktree path lies in: the name of its parent folder. */
export function bucketOfPath(path: string): string {
  return basename(dirname(path));
}
