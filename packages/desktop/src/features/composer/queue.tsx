import type { QueueSnapshot } from "@knightcode/app-server-protocol";
import type { JSX } from "preact";
import { reportError } from "../../state/toasts.js";
import { IconButton } from "../../ui/button.js";
import { composer } from "./store.js";

/**
 * What waits on the server: steers for the running turn, then follow-ups.
 * A follow-up can be removed until it starts; editing one takes it back
 * into the draft (the protocol edits nothing in place).
 */
export function QueueList({ threadId, queue, onEdit }: { threadId: string; queue: QueueSnapshot; onEdit: (text: string) => void }): JSX.Element | null {
  if (queue.steering.length === 0 && queue.followUp.length === 0) return null;
  const remove = (queueId: string, then?: () => void) => {
    composer.removeQueued(threadId, queueId).then(
      (removed) => {
        if (removed) then?.();
      },
      (error: unknown) => reportError(error, "Removing the queued message"),
    );
  };
  return (
    <ul class="composer-queue" aria-label="Waiting messages">
      {queue.steering.map((text, i) => (
        <li key={`s${i}`} class="composer-queued" data-queue-kind="steering">
          <span class="badge badge-running">steer</span>
          <span class="composer-queued-text">{text}</span>
        </li>
      ))}
      {queue.followUp.map((f) => (
        <li key={f.id} class="composer-queued" data-queue-kind="followUp" data-queue-id={f.id}>
          <span class="badge">queued</span>
          <span class="composer-queued-text">
            {f.text}
            {f.attachments ? ` (+${f.attachments})` : ""}
          </span>
          <IconButton icon="undo" label={`Edit queued message: ${f.text.slice(0, 40)}`} onClick={() => remove(f.id, () => onEdit(f.text))} />
          <IconButton icon="close" label={`Remove queued message: ${f.text.slice(0, 40)}`} onClick={() => remove(f.id)} />
        </li>
      ))}
    </ul>
  );
}
