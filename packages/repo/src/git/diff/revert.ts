import { applyPatch, diffChanged, patchOf, pathsOf, select } from "./apply.js";
import type { GitContext } from "../ops/context.js";
import { DiffInputError } from "./errors.js";
import { actionable } from "./hunk-id.js";
import { ACTION_BUDGET, DEFAULT_CONTEXT, driftedPaths, readDiff, type DiffRequest } from "./read.js";

export interface RevertRequest extends DiffRequest {
  path?: string;
  hunkId?: string;
  /** lastTurn only: apply the turn's changes again instead of undoing them. */
  reapply?: boolean;
  /** lastTurn only: the turn the client means; another last turn is `diffChanged`. */
  turnId?: string;
}

/** The combinations the spec refuses, before anything is read. */
function checkRequest(request: RevertRequest): void {
  const scope = request.scope ?? "uncommitted";
  if (scope === "staged" || scope === "committed") throw new DiffInputError(`the ${scope} scope is not in the working tree: it cannot be reverted there`);
  if (scope !== "lastTurn" && (request.reapply !== undefined || request.turnId !== undefined)) {
    throw new DiffInputError("reapply and turnId go with the lastTurn scope only");
  }
  if (request.reapply === true && request.hunkId !== undefined) throw new DiffInputError("reapply takes the whole turn or one path, not a hunk");
}

/**
 * Reverse-applies one hunk, one file or a whole scope to the working tree
 * (for `unstaged` relative to the index, `uncommitted` to HEAD, `branch`
 * to the merge base, `lastTurn` to the tree the turn found). A hunk of a
 * file that changes only as a whole takes the file; reverting an added
 * file deletes it, a renamed one comes back under its old name. The diff
 * is read again first: a hunk id it does not have is `diffChanged`, and
 * nothing changes. A turn is undone (or, with `reapply`, done again) only
 * while every file it changed is exactly as it left (or found) them.
 * Returns the paths the change touched. The caller holds the checkout.
 */
export async function revertDiff(ctx: GitContext, request: RevertRequest): Promise<{ paths: string[] }> {
  checkRequest(request);
  const scope = request.scope ?? "uncommitted";
  const context = request.context ?? DEFAULT_CONTEXT;
  if (request.hunkId !== undefined && !actionable(request.hunkId, context)) {
    throw diffChanged(`hunk ${request.hunkId} is not from a read at context ${context} (nor one ignoring whitespace)`);
  }
  const trees = request.lastTurn;
  if (scope === "lastTurn") {
    if (request.turnId !== undefined && trees?.turnId !== request.turnId) {
      throw diffChanged(trees ? `the last turn is ${trees.turnId}, not ${request.turnId}` : `turn ${request.turnId} is not the last turn with changes`);
    }
    if (!trees) throw new DiffInputError("this thread has no turn whose changes could be undone");
  }
  const read = await readDiff(ctx, { ...request, scope, context, ignoreWhitespace: false }, { budget: ACTION_BUDGET, binary: true });
  const selection = select(read, request);
  if (trees && scope === "lastTurn" && selection.hunk === undefined) {
    const side = request.reapply === true ? "before" : "after";
    const drifted = await driftedPaths(ctx, trees, side, request.path === undefined ? undefined : pathsOf(selection.patches));
    if (drifted.length > 0) {
      const state = side === "after" ? "as the turn left them" : "as the turn found them";
      throw diffChanged(`${drifted.length} file(s) are no longer ${state}`, drifted);
    }
  }
  const { patch, patches } = patchOf(selection);
  const paths = pathsOf(patches);
  await applyPatch(ctx, patch, { reverse: request.reapply !== true, paths });
  return { paths };
}
