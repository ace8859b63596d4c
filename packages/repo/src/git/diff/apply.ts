import { GitCommandError, GitConflictError } from "../errors.js";
import { repoRelative } from "../repo.js";
import { git } from "./context.js";
import type { GitContext } from "../ops/context.js";
import { DiffInputError } from "./errors.js";
import type { DiffRead } from "./read.js";
import type { DiffHunk, FilePatch } from "./types.js";

/** A hunk id that is not in the diff as it stands now. */
export function diffChanged(message: string, paths?: string[]): GitConflictError {
  return new GitConflictError("diffChanged", `${message}: read the diff again`, paths && paths.length > 0 ? { paths } : {});
}

/** The paths a file's change touches: a rename's both. */
export function pathsOf(patches: readonly FilePatch[]): string[] {
  return patches.flatMap(({ file }) => (file.oldPath !== undefined && file.oldPath !== file.path ? [file.oldPath, file.path] : [file.path]));
}

/** What an action acts on: files, and perhaps one hunk of one of them. */
export interface Selection {
  patches: FilePatch[];
  hunk?: { patch: FilePatch; hunk: DiffHunk; bytes: Buffer };
}

/** A path a client named, relative to the root; one outside the repository is a DiffInputError. */
export function clientPath(root: string, path: string): string {
  const relative = repoRelative(root, path);
  if (relative === undefined || relative === "") throw new DiffInputError(`path ${path} is not a file inside the repository ${root}`);
  return relative;
}

/**
 * The part of a read an action names: one file (`path`), one hunk
 * (`hunkId`, within `path` when both are given) or everything. A path
 * outside the diff is a DiffInputError; a hunk id the read does not have
 * is `diffChanged`.
 */
export function select(read: DiffRead, request: { path?: string; hunkId?: string }): Selection {
  let patches = read.patches;
  if (request.path !== undefined) {
    const path = clientPath(read.answer.root, request.path);
    patches = patches.filter(({ file }) => file.path === path || file.oldPath === path);
    if (patches.length === 0) throw new DiffInputError(`${path} is not in the ${read.answer.scope} diff`);
  }
  if (request.hunkId === undefined) return { patches };
  for (const patch of patches) {
    const at = patch.file.hunks.findIndex((hunk) => hunk.id === request.hunkId);
    if (at !== -1) return { patches: [patch], hunk: { patch, hunk: patch.file.hunks[at]!, bytes: patch.hunkBytes[at]! } };
  }
  throw diffChanged(`hunk ${request.hunkId} is not in the ${read.answer.scope} diff any more`, request.path !== undefined ? pathsOf(patches) : undefined);
}

/**
 * The patch an action applies: one hunk under its file's header, or whole
 * files (a hunk of a file that changes only as a whole takes the file).
 * Submodule commits are left out: git cannot move them in a working tree.
 */
export function patchOf(selection: Selection): { patch: Buffer; patches: FilePatch[] } {
  const { hunk } = selection;
  if (hunk && !hunk.patch.wholeOnly) return { patch: Buffer.concat([hunk.patch.header, hunk.bytes]), patches: [hunk.patch] };
  const patches = selection.patches.filter((patch) => !patch.gitlink);
  return { patch: Buffer.concat(patches.map((patch) => patch.section)), patches };
}

/**
 * `git apply` of a patch we built: to the working tree, or with `cached`
 * to the index; `reverse` undoes it. A patch git refuses is `patchFailed`
 * with what git said, and nothing is changed (git applies all or nothing).
 */
export async function applyPatch(ctx: GitContext, patch: Buffer, options: { reverse?: boolean; cached?: boolean; paths: string[] }): Promise<void> {
  if (patch.length === 0) return;
  const args = ["apply", "--whitespace=nowarn", ...(options.reverse ? ["--reverse"] : []), ...(options.cached ? ["--cached"] : []), "-"];
  try {
    await git(ctx, args, { input: patch, readOnly: false });
  } catch (error) {
    if (error instanceof GitCommandError && !error.gitMissing && error.code !== null) {
      throw new GitConflictError("patchFailed", `git could not apply the change${options.paths.length > 0 ? ` to ${options.paths.join(", ")}` : ""}`, {
        paths: options.paths,
        output: error.stderr,
      });
    }
    throw error;
  }
}
