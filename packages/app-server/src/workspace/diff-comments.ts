import { DiffInputError } from "@knightcode/repo/git/diff/errors";
import { NotGitRepoError } from "@knightcode/repo/git/errors";
import { findHunk, quoteLines, type FoundHunk } from "@knightcode/repo/git/diff/find";
import { repoRelative } from "@knightcode/repo/git/repo";
import type { GitContext } from "@knightcode/repo/git/ops/context";
import type { ReviewComment } from "@knightcode/repo/git/diff/review-comments";
import type { SavedFinding } from "@knightcode/agent/tools/report-finding";
import type { ClientRequestParams } from "@knightcode/app-server-protocol";
import { rpcError } from "../rpc/errors.js";
import type { LoadedThread } from "../threads/loaded-thread.js";
import { lastTurnTrees, threadGit, withDiffErrors, worktreeBaseOf } from "./diff-context.js";
import { reviewedHunk } from "./review/diff.js";

type CommentInput = NonNullable<ClientRequestParams<"turn/start">["comments"]>[number];

const MAX_TEXT_BYTES = 8 * 1024;

/** Checks what the schema cannot: the text's bytes and the line range. */
function checkShape(comment: CommentInput, where: string): void {
  if (Buffer.byteLength(comment.text, "utf8") > MAX_TEXT_BYTES) throw rpcError("invalidParams", `${where}.text is longer than 8 KiB`);
  if (comment.endLine < comment.startLine) throw rpcError("invalidParams", `${where}.endLine is before its startLine`);
}

/**
 * Review comments as the turn carries them: each hunk found by its id in
 * the thread's current diff (any scope a reviewer reads, at the context the
 * id carries), and the commented lines quoted from it. A hunk id that
 * matches nothing, a path that is not the hunk's file, or lines outside
 * the hunk are invalidParams: the client should read the diff again.
 */
export async function quoteComments(
  comments: readonly CommentInput[] | undefined,
  thread: LoadedThread,
  env: NodeJS.ProcessEnv,
  detached?: (hunkId: string) => Promise<SavedFinding | undefined>,
): Promise<ReviewComment[]> {
  if (!comments || comments.length === 0) return [];
  for (const [i, comment] of comments.entries()) checkShape(comment, `params.comments[${i}]`);
  return withDiffErrors(async () => {
    let git: GitContext;
    try {
      git = await threadGit(thread, env);
    } catch (error) {
      if (error instanceof NotGitRepoError) throw new DiffInputError("params.comments: review comments need the thread's folder to be in a git repository");
      throw error;
    }
    const lastTurn = await lastTurnTrees(thread);
    const found = new Map<string, FoundHunk | undefined>();
    const quoted: ReviewComment[] = [];
    for (const [i, comment] of comments.entries()) {
      const where = `params.comments[${i}]`;
      if (!found.has(comment.hunkId)) {
        const current = await findHunk(git, comment.hunkId, { ...worktreeBaseOf(thread), ...(lastTurn ? { lastTurn } : {}) });
        found.set(comment.hunkId, current ?? (await reviewedHunk(thread, git, comment.hunkId, detached)));
      }
      const hit = found.get(comment.hunkId);
      if (!hit) throw new DiffInputError(`${where}.hunkId ${comment.hunkId} matches no hunk of the current diff: read the diff again`);
      const path = repoRelative(git.repo.root, comment.path);
      if (path !== hit.file.path && path !== hit.file.oldPath)
        throw new DiffInputError(`${where}.path ${comment.path} is not the file of hunk ${comment.hunkId} (${hit.file.path})`);
      const side = comment.side ?? "new";
      const quote = quoteLines(hit.hunk, side, comment.startLine, comment.endLine);
      if (quote === "") throw new DiffInputError(`${where}: ${side} lines ${comment.startLine}-${comment.endLine} are not in hunk ${comment.hunkId}`);
      quoted.push({ path: hit.file.path, side, startLine: comment.startLine, endLine: comment.endLine, text: comment.text, quote });
    }
    return quoted;
  });
}
