import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { openThreadSignal } from "../../state/open-threads.js";
import { reportError, toast } from "../../state/toasts.js";
import { Button, IconButton } from "../../ui/button.js";
import { commentPlace } from "./review-comments.js";
import { pendingReviewComments, removeReviewComment, workspace } from "./store.js";

const DEFAULT_TEXT = "Please address my review comments.";

/**
 * The thread's unsent review comments as chips, and a way to send them now:
 * a turn when the thread is idle, a queued input while one runs.
 */
export function ReviewComments({ threadId }: { threadId: string }): JSX.Element | null {
  const comments = pendingReviewComments(threadId).value;
  const [sending, setSending] = useState(false);
  if (comments.length === 0) return null;

  const send = async () => {
    const status = openThreadSignal(threadId).value?.thread.status;
    setSending(true);
    try {
      const sent = await workspace.sendComments(threadId, status?.type === "active", DEFAULT_TEXT);
      toast(`Sent ${sent} review ${sent === 1 ? "comment" : "comments"}`, "success");
    } catch (error) {
      reportError(error, "Sending the review comments");
    } finally {
      setSending(false);
    }
  };

  return (
    <div class="ws-comments" role="region" aria-label="Review comments to send">
      <ul class="ws-chips">
        {comments.map((comment, index) => (
          <li key={index} class="ws-chip">
            <code>{commentPlace(comment)}</code>
            <span class="ws-chip-text">{comment.text}</span>
            <IconButton icon="close" label={`Remove the comment on ${commentPlace(comment)}`} onClick={() => removeReviewComment(threadId, index)} />
          </li>
        ))}
      </ul>
      <Button variant="primary" icon="send" disabled={sending} onClick={() => void send()}>
        Send comments
      </Button>
    </div>
  );
}
