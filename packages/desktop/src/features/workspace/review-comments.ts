import type { ReviewCommentInput } from "@knightcode/app-server-protocol";

/** How a comment reads on a chip: `src/a.ts:8-9`. */
export function commentPlace(comment: ReviewCommentInput): string {
  const lines = comment.startLine === comment.endLine ? `${comment.startLine}` : `${comment.startLine}-${comment.endLine}`;
  return `${comment.path}:${comment.side === "old" ? "old " : ""}${lines}`;
}
