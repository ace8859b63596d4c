import { rm, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { GitConflictError } from "../errors.js";
import { withIndexAt } from "../ops/index-copy.js";
import { noUserCodeConfig } from "../run.js";
import { addIntentToAdd, git, listUntracked, withIndexCopy } from "./context.js";
import { driftedPaths } from "./read.js";
import { changedPaths, type TurnTrees } from "./snapshot.js";
import type { GitContext } from "../ops/context.js";

/** A file a rewind changed in the working tree: `added` came back, `deleted` went, `modified` got its old content or mode. */
export interface RewoundFile {
  path: string;
  status: "added" | "modified" | "deleted";
}

export interface RewindRequest {
  /** The turns undone, oldest first, each with its snapshots: the first one's `before` is what the files go back to. */
  turns: readonly TurnTrees[];
  /** Restore over files changed since the last undone turn ended, losing those changes. */
  force?: boolean;
}

const GITLINK = "160000";

/**
 * Puts back, as the first undone turn found them, every path any of the
 * undone turns changed (whatever tool changed it: the snapshots are of the
 * whole working tree). Files the turns created go, files they deleted come
 * back, contents and modes return; a rename is its two paths. Unless
 * forced, a path whose file is no longer as the last undone turn left it
 * (someone edited it since) refuses the whole rewind with gitConflict
 * `diffChanged` naming those paths, and nothing changes. The index is
 * never touched; no hook or filter runs; a submodule's commit never moves.
 * The caller holds the checkout. Returns the files it changed, by path.
 */
export async function rewindWorkingTree(ctx: GitContext, request: RewindRequest): Promise<RewoundFile[]> {
  const first = request.turns[0];
  const last = request.turns.at(-1);
  if (!first || !last) return [];
  // One turn at a time: a rewind over hundreds of turns starts no more than one git at once.
  const touched = new Set<string>();
  for (const turn of request.turns) for (const path of await changedPaths(ctx, turn.before, turn.after)) touched.add(path);
  if (touched.size === 0) return [];
  if (request.force !== true) {
    const edited = await driftedPaths(ctx, last, "after", [...touched]);
    if (edited.length > 0) {
      throw new GitConflictError("diffChanged", `${edited.length} file(s) changed since turn ${last.turnId} ended; rewind with force to lose those changes`, {
        paths: edited.sort(),
      });
    }
  }
  const differing = (await differencesFrom(ctx, first.before)).filter((change) => touched.has(change.path));
  const goes = differing.filter((change) => change.status === "deleted").map((change) => change.path);
  const comes = differing.filter((change) => change.status !== "deleted").map((change) => change.path);
  for (const path of goes) await removeFile(ctx.repo.root, path);
  if (comes.length > 0) await checkoutFrom(ctx, first.before, comes);
  return differing.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * What putting `tree` back would do to each path whose working-tree state
 * differs from it (untracked files count, ignored ones do not): a file
 * missing from the tree is `deleted`, one missing from the working tree
 * `added`. Submodules are left out. Writes nothing, not even objects.
 */
async function differencesFrom(ctx: GitContext, tree: string): Promise<RewoundFile[]> {
  const raw = await withIndexCopy(ctx, async (index) => {
    await addIntentToAdd(ctx, index, await listUntracked(ctx));
    return (await git(ctx, ["diff", "--no-ext-diff", "--no-textconv", "--raw", "-z", "--no-renames", "--no-abbrev", tree, "--"], { index })).stdout;
  });
  const fields = raw.toString("utf8").split("\0");
  const changes: RewoundFile[] = [];
  for (let at = 0; at + 1 < fields.length; at += 2) {
    // ":<tree mode> <working mode> <tree id> <working id> <letter>", then the path.
    const [treeMode, workMode, , , letter] = fields[at]!.slice(1).split(" ");
    const path = fields[at + 1]!;
    if (treeMode === GITLINK || workMode === GITLINK) continue;
    changes.push({ path, status: letter === "A" ? "deleted" : letter === "D" ? "added" : "modified" });
  }
  return changes;
}

/** Writes `paths` as `tree` holds them, from a private index of that tree, with filters off. */
async function checkoutFrom(ctx: GitContext, tree: string, paths: readonly string[]): Promise<void> {
  const config = await noUserCodeConfig(ctx.repo.root, ctx.env);
  await withIndexAt(undefined, async (index) => {
    await git(ctx, ["read-tree", tree], { index, readOnly: false, config });
    const input = Buffer.from(paths.map((path) => `${path}\0`).join(""));
    await git(ctx, ["checkout-index", "--force", "-z", "--stdin"], { index, input, readOnly: false, config });
  });
}

/** Removes a file a turn created, and the folders it leaves empty up to the root (git keeps no empty folder either). */
async function removeFile(root: string, path: string): Promise<void> {
  await rm(join(root, path), { force: true });
  for (let dir = dirname(path); dir !== "." && dir !== ""; dir = dirname(dir)) {
    try {
      await rmdir(join(root, dir));
    } catch {
      return;
    }
  }
}
