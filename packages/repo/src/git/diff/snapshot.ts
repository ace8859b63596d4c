import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { addIntentToAdd, git, listUntracked, pathspecInput } from "./context.js";
import { withIndexCopy } from "../ops/index-copy.js";
import type { GitContext } from "../ops/context.js";
import type { FileTotals } from "@knightcode/schema/threads";

/**
 * An untracked file larger than this stays out of a turn's snapshots (a
 * build artefact, a dataset): snapshots go into the repository's object
 * store every turn, and a day of turns must not fill it with copies of
 * files nobody reviews as a diff.
 */
export const SNAPSHOT_UNTRACKED_MAX_BYTES = 16 * 1024 * 1024;

/**
 * A working tree with more untracked files than this (a home folder that
 * is a repository, an unignored dependency folder) is not snapshotted at
 * all: copying it into the object store at every turn would cost more
 * than knowing what the turn changed.
 */
export const SNAPSHOT_UNTRACKED_MAX_FILES = 10_000;

/** The working tree is too large to snapshot (see SNAPSHOT_UNTRACKED_MAX_FILES). */
export class SnapshotTooLargeError extends Error {
  override readonly name = "SnapshotTooLargeError";
}

/** A turn's two pictures of the working tree, as tree ids. */
export interface TurnTrees {
  turnId: string;
  before: string;
  after: string;
}

export type { FileTotals };

const IDENTITY = {
  GIT_AUTHOR_NAME: "KnightCode",
  GIT_AUTHOR_EMAIL: "knightcode@localhost",
  GIT_COMMITTER_NAME: "KnightCode",
  GIT_COMMITTER_EMAIL: "knightcode@localhost",
};

/**
 * The working tree as a tree object: tracked files as they are on disk,
 * and untracked files git does not ignore. Built in a copy of the index
 * seeded from the real one (whose stat data spares rehashing unchanged
 * files), so the user's index and staged state are untouched; the blobs
 * and trees go into the repository's object store. Untracked files over
 * SNAPSHOT_UNTRACKED_MAX_BYTES are left out; more untracked files than
 * SNAPSHOT_UNTRACKED_MAX_FILES throw SnapshotTooLargeError.
 */
export async function snapshotTree(ctx: GitContext): Promise<string> {
  return withIndexCopy(ctx, async (index) => {
    const listed = await listUntracked(ctx);
    if (listed.length > SNAPSHOT_UNTRACKED_MAX_FILES) {
      throw new SnapshotTooLargeError(`${listed.length} untracked files (more than ${SNAPSHOT_UNTRACKED_MAX_FILES}): the turn's changes are not tracked`);
    }
    const untracked = await smallEnough(ctx, listed);
    await git(ctx, ["add", "--update"], { index, readOnly: false });
    if (untracked.length > 0) {
      await git(ctx, ["add", "--pathspec-from-file=-", "--pathspec-file-nul"], {
        index,
        input: pathspecInput(untracked),
        readOnly: false,
        extraEnv: { GIT_LITERAL_PATHSPECS: "1" },
      });
    }
    const { stdout } = await git(ctx, ["write-tree"], { index, readOnly: false });
    return stdout.toString("utf8").trim();
  });
}

/** Paths (renames as a deletion and an addition) whose content or mode differs between two trees. */
export async function changedPaths(ctx: GitContext, from: string, to: string): Promise<string[]> {
  if (from === to) return [];
  const { stdout } = await git(ctx, ["diff", "--no-ext-diff", "--no-textconv", "--name-only", "-z", "--no-renames", from, to]);
  return stdout
    .toString("utf8")
    .split("\0")
    .filter((path) => path !== "");
}

/**
 * Paths whose working-tree state differs from `tree`: untracked files
 * count (marked intent-to-add in an index copy), ignored ones do not.
 * Writes nothing, not even objects.
 */
export async function pathsChangedSince(ctx: GitContext, tree: string): Promise<string[]> {
  return withIndexCopy(ctx, async (index) => {
    await addIntentToAdd(ctx, index, await listUntracked(ctx));
    const { stdout } = await git(ctx, ["diff", "--no-ext-diff", "--no-textconv", "--name-only", "-z", "--no-renames", tree, "--"], { index });
    return stdout
      .toString("utf8")
      .split("\0")
      .filter((path) => path !== "");
  });
}

/**
 * Net line totals per file between two trees. Renames count as a deletion
 * and an addition; a file whose lines did not change (a mode change, an
 * empty file touched) is left out, a changed binary file stays in at 0/0.
 */
export async function treeTotals(ctx: GitContext, from: string, to: string): Promise<FileTotals[]> {
  if (from === to) return [];
  const { stdout } = await git(ctx, ["diff", "--no-ext-diff", "--no-textconv", "--numstat", "-z", "--no-renames", from, to]);
  const files: FileTotals[] = [];
  for (const record of stdout.toString("utf8").split("\0")) {
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(record);
    if (!match) continue;
    const binary = match[1] === "-";
    const additions = binary ? 0 : Number(match[1]);
    const deletions = binary ? 0 : Number(match[2]);
    if (!binary && additions === 0 && deletions === 0) continue;
    files.push({ path: match[3]!, additions, deletions });
  }
  return files;
}

/** The ref that keeps every turn's trees of a thread from `git gc`. */
export function turnRef(threadId: string): string {
  return `refs/knightcode/turns/${threadId}`;
}

/**
 * Points `refs/knightcode/turns/<threadId>` at a commit whose tree holds
 * the turn's two trees (`before/` and `after/`), and whose parent is the
 * ref's previous commit: one chain per thread, so `git gc` keeps every
 * turn's trees while the thread lives (any turn's diff can be read), and
 * deleting the ref lets them all go. The ref moves only from the value
 * read, so a concurrent writer fails rather than cutting the chain.
 */
export async function keepTurnTrees(ctx: GitContext, threadId: string, trees: TurnTrees): Promise<void> {
  const ref = turnRef(threadId);
  const listing = `040000 tree ${trees.after}\tafter\n040000 tree ${trees.before}\tbefore\n`;
  const holder = (await git(ctx, ["mktree"], { input: listing, readOnly: false })).stdout.toString("utf8").trim();
  const previous = (await git(ctx, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { okCodes: [1] })).stdout.toString("utf8").trim();
  const parent = previous === "" ? [] : ["-p", previous];
  const commit = (
    await git(ctx, ["commit-tree", "--no-gpg-sign", holder, ...parent, "-m", `KnightCode turn ${trees.turnId}`], { readOnly: false, extraEnv: IDENTITY })
  ).stdout
    .toString("utf8")
    .trim();
  await git(ctx, ["update-ref", "-m", "knightcode turn", ref, commit, previous], { readOnly: false });
}

/** Whether both of a turn's trees are still in the object store (a turn kept before the chain may have been collected). */
export async function turnTreesKept(ctx: GitContext, trees: TurnTrees): Promise<boolean> {
  const { stdout } = await git(ctx, ["cat-file", "--batch-check=%(objecttype)"], { input: `${trees.before}\n${trees.after}\n` });
  return stdout
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "")
    .every((type) => type === "tree");
}

/** The untracked paths whose files are within the snapshot's size bound (one that vanished meanwhile is left to git). */
async function smallEnough(ctx: GitContext, paths: Buffer[]): Promise<Buffer[]> {
  const kept: Buffer[] = [];
  for (let at = 0; at < paths.length; at += 256) {
    const batch = paths.slice(at, at + 256);
    const sizes = await Promise.all(
      batch.map((path) =>
        lstat(join(ctx.repo.root, path.toString("utf8"))).then(
          (st) => st.size,
          () => 0,
        ),
      ),
    );
    batch.forEach((path, i) => {
      if (sizes[i]! <= SNAPSHOT_UNTRACKED_MAX_BYTES) kept.push(path);
    });
  }
  return kept;
}
