import type { ReviewComment } from "@knightcode/schema/items";

/** A review comment as the user item and the model carry it: where, what the user wrote, and the lines it quotes. */
export type { ReviewComment };

function isComment(value: unknown): value is ReviewComment {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Record<string, unknown>;
  return (
    typeof c.path === "string" &&
    (c.side === "new" || c.side === "old") &&
    Number.isInteger(c.startLine) &&
    Number.isInteger(c.endLine) &&
    typeof c.text === "string" &&
    typeof c.quote === "string"
  );
}

/** The comments a saved user message carries; malformed ones (a hand-edited transcript) are left out. */
export function reviewCommentsOf(message: unknown): ReviewComment[] | undefined {
  const comments = (message as { comments?: unknown } | null)?.comments;
  if (!Array.isArray(comments)) return undefined;
  const valid = comments.filter(isComment);
  return valid.length > 0 ? valid : undefined;
}

function lineRange(comment: ReviewComment): string {
  const side = comment.side === "old" ? "old" : "new";
  return comment.startLine === comment.endLine ? `${side} line ${comment.startLine}` : `${side} lines ${comment.startLine}-${comment.endLine}`;
}

/** A fence longer than any run of backticks in the quote, so the quote cannot close it. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  return "`".repeat(longest + 1);
}

/**
 * The comments as the model reads them, after the user's text: each with
 * its file, its lines and side, the quoted diff lines in a fence, and what
 * the user said about them.
 */
export function formatReviewComments(comments: readonly ReviewComment[]): string {
  const parts = comments.map((comment, i) => {
    const fence = fenceFor(comment.quote);
    return [`${i + 1}. ${comment.path}, ${lineRange(comment)}:`, `${fence}diff`, comment.quote, fence, comment.text].join("\n");
  });
  return [`The user left ${comments.length} review comment(s) on the diff:`, ...parts].join("\n\n");
}
