import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { commitOf, emptyTree } from "../ops/context.js";
import { git, withIndexCopy, type GitContext } from "./context.js";
import { changedPaths } from "./snapshot.js";

/**
 * A snapshot of the working tree as it stood at `since` (a file
 * modification time, so that the kernel's file clock, coarser than
 * `Date.now()`, is compared with itself; a file saved in the same tick
 * before it counts as after), when the snapshot itself was taken
 * later. Taking one reads the files one by one for as long as it runs, so a file an editor saved after `since` may be in
 * it with its new content, and would count as there before. Each file that
 * differs from `baseline` (the last picture known to predate `since`: the
 * previous turn's after-tree, or HEAD) and was modified since `since` gets
 * its baseline version (or is left out when the baseline lacks it). The
 * price of a doubt is a file that also carries older edits of the user's,
 * never one that is missing from the turn's list. No file changed: the
 * tree as it was, after one tree-to-tree diff.
 */
export async function backdateSnapshot(ctx: GitContext, tree: string, since: number, baseline: string | undefined): Promise<string> {
  const base = baseline ?? (await commitOf(ctx, "HEAD")) ?? (await emptyTree(ctx));
  const candidates = await changedPaths(ctx, base, tree);
  const late = await modifiedSince(ctx.repo.root, candidates, since);
  if (late.length === 0) return tree;
  return withIndexCopy(ctx, async (index) => {
    await git(ctx, ["read-tree", tree], { index, readOnly: false });
    const fromBase: string[] = [];
    for (let at = 0; at < late.length; at += 500) {
      const listed = await git(ctx, ["ls-tree", "-z", "--full-tree", base, "--", ...late.slice(at, at + 500)], { extraEnv: { GIT_LITERAL_PATHSPECS: "1" } });
      fromBase.push(
        ...listed.stdout
          .toString("utf8")
          .split("\0")
          .filter((record) => record !== ""),
      );
    }
    const restored = new Set(fromBase.map((record) => record.slice(record.indexOf("\t") + 1)));
    // Mode 0 takes a path out of the index: a file the baseline did not have was not there before.
    const zero = "0".repeat(tree.length);
    const removed = late.filter((path) => !restored.has(path)).map((path) => `0 ${zero}\t${path}`);
    const input = [...fromBase, ...removed].map((record) => `${record}\0`).join("");
    await git(ctx, ["update-index", "-z", "--index-info"], { index, input, readOnly: false });
    const { stdout } = await git(ctx, ["write-tree"], { index, readOnly: false });
    return stdout.toString("utf8").trim();
  });
}

/** The paths whose file was modified at or after `since` (one that is gone cannot say when it went, and is left as it is). */
async function modifiedSince(root: string, paths: readonly string[], since: number): Promise<string[]> {
  const late: string[] = [];
  for (let at = 0; at < paths.length; at += 256) {
    const batch = paths.slice(at, at + 256);
    const times = await Promise.all(
      batch.map((path) =>
        lstat(join(root, path)).then(
          (st) => st.mtimeMs,
          () => Number.NEGATIVE_INFINITY,
        ),
      ),
    );
    batch.forEach((path, i) => {
      if (times[i]! >= since) late.push(path);
    });
  }
  return late;
}
