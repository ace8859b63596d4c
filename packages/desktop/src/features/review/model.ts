import { signal, type Signal } from "@preact/signals";
import { AppServerError } from "@knightcode/app-server-client/browser";
import type { ClientRequestParams, ClientRequestResult, ItemOf, ReviewCommentInput } from "@knightcode/app-server-protocol";
import type { Connection } from "../../connection/connection.js";

/**
 * The review model: what the page asks of review turns (start one over a
 * scope, apply a finding's suggestion) and what it remembers of each
 * finding this page applied or could not apply. Views hold only whether
 * they are busy. It reaches the server through the connection it is given.
 */

export type ReviewFindingItem = ItemOf<"reviewFinding">;
export type ReviewScopeChoice = "uncommitted" | "branch" | "lastTurn";

export interface ReviewDeps {
  conn: () => Pick<Connection, "request">;
  /** Puts a review comment with the thread's next message: the diff view's list. */
  addComment: (threadId: string, comment: ReviewCommentInput) => void;
}

/** What applying a finding came to, on this page. */
export type ApplyState = { kind: "applied"; paths: string[] } | { kind: "refused"; title: string; message: string };

export interface ReviewModel {
  start(threadId: string, scope: ReviewScopeChoice, focus: string, detached: boolean): Promise<ClientRequestResult<"review/start">>;
  /** Applies a finding's suggestion; a refusal is kept on the finding rather than thrown. */
  apply(threadId: string, finding: ReviewFindingItem): Promise<void>;
  applied(findingId: string): Signal<ApplyState | undefined>;
  /** The finding as a review comment on the thread's next message. */
  comment(threadId: string, finding: ReviewFindingItem): void;
}

/** The server bounds a comment's text to 8 KiB; a finding's body may be longer. */
const MAX_COMMENT_CHARS = 4000;

/** The words a finding goes back with. */
export function commentText(finding: ReviewFindingItem): string {
  const text = `${finding.title} (${finding.severity}): ${finding.body}`;
  return text.length > MAX_COMMENT_CHARS ? `${text.slice(0, MAX_COMMENT_CHARS - 1)}…` : text;
}

function refusal(error: unknown): { title: string; message: string } {
  const reason = error instanceof AppServerError ? (error.data as { reason?: unknown } | undefined)?.reason : undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (reason === "diffChanged") return { title: "The file changed since the review: the suggestion no longer fits", message };
  if (reason === "patchFailed") return { title: "git could not apply the suggestion", message };
  if (error instanceof AppServerError && error.code === "turnInProgress") return { title: "A turn is running in this checkout: apply once it ends", message };
  return { title: "The suggestion was not applied", message };
}

export function createReviewModel(deps: ReviewDeps): ReviewModel {
  const states = new Map<string, Signal<ApplyState | undefined>>();
  const applied = (findingId: string) => {
    let entry = states.get(findingId);
    if (!entry) states.set(findingId, (entry = signal(undefined)));
    return entry;
  };
  return {
    start(threadId, scope, focus, detached) {
      const params: ClientRequestParams<"review/start"> = {
        threadId,
        scope,
        ...(focus.trim() ? { focus: focus.trim() } : {}),
        ...(detached ? { delivery: "detached" } : {}),
      };
      return deps.conn().request("review/start", params);
    },
    async apply(threadId, finding) {
      const state = applied(finding.findingId);
      try {
        const { paths } = await deps.conn().request("review/finding/apply", { threadId, findingId: finding.findingId });
        state.value = { kind: "applied", paths };
      } catch (error) {
        state.value = { kind: "refused", ...refusal(error) };
      }
    },
    applied,
    comment(threadId, finding) {
      const { path, hunkId, side, startLine, endLine } = finding;
      deps.addComment(threadId, { path, hunkId, side, startLine, endLine, text: commentText(finding) });
    },
  };
}
