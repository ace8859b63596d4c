import { signal, type Signal } from "@preact/signals";
import type { ReviewCommentInput } from "@knightcode/app-server-protocol";

/**
 * Review comments the user wrote on hunks and has not sent yet, per thread.
 * They live here until a turn takes them (the composer, or the panel's
 * "Send comments"), so closing the panel does not lose them.
 */
const pending = new Map<string, Signal<ReviewCommentInput[]>>();

/** The thread's unsent comments, for the composer to show as chips. */
export function pendingReviewComments(threadId: string): Signal<ReviewCommentInput[]> {
  let entry = pending.get(threadId);
  if (!entry) pending.set(threadId, (entry = signal([])));
  return entry;
}

export function addReviewComment(threadId: string, comment: ReviewCommentInput): void {
  const entry = pendingReviewComments(threadId);
  entry.value = [...entry.value, comment];
}

export function removeReviewComment(threadId: string, index: number): void {
  const entry = pendingReviewComments(threadId);
  entry.value = entry.value.filter((_, i) => i !== index);
}

/** Hands the comments to the next turn and forgets them; put them back with `restoreReviewComments` when that turn is refused. */
export function takeReviewComments(threadId: string): ReviewCommentInput[] {
  const entry = pendingReviewComments(threadId);
  const taken = entry.value;
  entry.value = [];
  return taken;
}

export function restoreReviewComments(threadId: string, comments: ReviewCommentInput[]): void {
  const entry = pendingReviewComments(threadId);
  entry.value = [...comments, ...entry.value];
}

/** How a comment reads on a chip: `src/a.ts:8-9`. */
export function commentPlace(comment: ReviewCommentInput): string {
  const lines = comment.startLine === comment.endLine ? `${comment.startLine}` : `${comment.startLine}-${comment.endLine}`;
  return `${comment.path}:${comment.side === "old" ? "old " : ""}${lines}`;
}
