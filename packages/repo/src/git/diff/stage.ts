import { GitCommandError } from "../errors.js";
import { applyPatch, clientPath, diffChanged, patchOf, pathsOf, select } from "./apply.js";
import { git, listUntracked } from "./context.js";
import { withIndexCopy } from "../ops/index-copy.js";
import type { GitContext } from "../ops/context.js";
import { headOrEmpty } from "./base.js";
import { DiffInputError } from "./errors.js";
import { actionable } from "./hunk-id.js";
import { ACTION_BUDGET, DEFAULT_CONTEXT, readDiff } from "./read.js";

export interface StageRequest {
  path?: string;
  hunkId?: string;
  context?: number;
}

const literal = (path: string) => `:(literal)${path}`;

function names(out: Buffer): string[] {
  return out
    .toString("utf8")
    .split("\0")
    .filter((path) => path !== "");
}

/** Adds whole files to the index (their deletion too); a path that matches nothing is a DiffInputError. */
async function addPaths(ctx: GitContext, paths: readonly string[]): Promise<void> {
  try {
    await git(ctx, ["add", "--all", "--", ...paths.map(literal)], { readOnly: false });
  } catch (error) {
    if (error instanceof GitCommandError && /did not match any files/.test(error.stderr))
      throw new DiffInputError(`${paths.join(", ")} matches no file to stage`);
    throw error;
  }
}

/** Puts whole files in the index back as HEAD has them (out of the index when HEAD has none). */
async function resetPaths(ctx: GitContext, paths: readonly string[]): Promise<void> {
  await git(ctx, ["reset", "--quiet", "--", ...paths.map(literal)], { readOnly: false });
}

/** Unstaged paths (index against working tree) and untracked files: what staging everything adds. */
async function unstagedNames(ctx: GitContext): Promise<string[]> {
  const tracked = await withIndexCopy(ctx, async (index) =>
    names((await git(ctx, ["diff", "--no-ext-diff", "--name-only", "-z", "--no-renames", "--"], { index })).stdout),
  );
  const untracked = (await listUntracked(ctx)).map((path) => path.toString("utf8"));
  return [...new Set([...tracked, ...untracked])].sort();
}

/** Staged paths (HEAD against the index): what unstaging everything takes back. */
async function stagedNames(ctx: GitContext): Promise<string[]> {
  const head = await headOrEmpty(ctx);
  return names((await git(ctx, ["diff", "--no-ext-diff", "--name-only", "-z", "--no-renames", "--cached", head, "--"])).stdout);
}

/**
 * `git/stage` (`unstage` false) and `git/unstage`: everything, one path
 * (literal), or one hunk of an `unstaged` read (staging) or a `staged`
 * read (unstaging), applied to the index with `git apply --cached`. A
 * hunk of a file that changes only as a whole takes the file. These write
 * the user's index: that is their job. The caller holds the checkout.
 */
export async function changeIndex(ctx: GitContext, request: StageRequest, unstage: boolean): Promise<{ paths: string[] }> {
  const context = request.context ?? DEFAULT_CONTEXT;
  if (request.hunkId === undefined) {
    if (request.path === undefined) {
      const paths = unstage ? await stagedNames(ctx) : await unstagedNames(ctx);
      if (unstage) await git(ctx, ["reset", "--quiet"], { readOnly: false });
      else await git(ctx, ["add", "--all"], { readOnly: false });
      return { paths };
    }
    const path = clientPath(ctx.repo.root, request.path);
    if (unstage) await resetPaths(ctx, [path]);
    else await addPaths(ctx, [path]);
    return { paths: [path] };
  }
  if (!actionable(request.hunkId, context)) throw diffChanged(`hunk ${request.hunkId} is not from a read at context ${context} (nor one ignoring whitespace)`);
  const scope = unstage ? "staged" : "unstaged";
  const read = await readDiff(ctx, { scope, context }, { budget: ACTION_BUDGET, binary: true });
  const selection = select(read, request);
  const whole = selection.hunk?.patch.wholeOnly === true;
  const { patch, patches } = patchOf(selection);
  const paths = pathsOf(whole ? selection.patches : patches);
  if (whole) {
    if (unstage) await resetPaths(ctx, paths);
    else await addPaths(ctx, paths);
  } else {
    await applyPatch(ctx, patch, { cached: true, reverse: unstage, paths });
  }
  return { paths };
}
