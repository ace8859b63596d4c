import type { JSX } from "preact";
import "./requests.css";
import { ApprovalRequest } from "./approval-card.js";
import { DialogRequest } from "./dialog-card.js";
import { QuestionsRequest } from "./questions-card.js";
import { AskedBy } from "./card.js";
import { subagentName, threadCards, type PendingCard } from "./store.js";

export { installRequestHandlers, threadCards } from "./store.js";

function Card({ card }: { card: PendingCard }): JSX.Element {
  switch (card.method) {
    case "item/toolCall/requestApproval":
      return <ApprovalRequest card={card} />;
    case "item/toolCall/requestUserInput":
      return <QuestionsRequest card={card} />;
    case "ui/dialog":
      return <DialogRequest card={card} />;
  }
}

/** Approval, dialog and question cards the server is waiting on for one thread. */
export function PendingRequests({ threadId }: { threadId: string }): JSX.Element | null {
  const cards = threadCards(threadId).value;
  return (
    <>
      {/* Announced when a card arrives, for a user who kept typing and whose focus stayed put. */}
      <p class="visually-hidden" aria-live="polite">
        {cards.length === 0 ? "" : `${cards.length} ${cards.length === 1 ? "request waits" : "requests wait"} for your answer`}
      </p>
      {cards.length > 0 && (
        <div class="pending-requests" role="region" aria-label="Waiting for your answer">
          {cards.map((card) => (
            // A sub-agent's card shows under its parent too: it says which sub-agent asks.
            <AskedBy.Provider key={card.key} value={card.threadId === threadId ? undefined : subagentName(card.threadId)}>
              <Card card={card} />
            </AskedBy.Provider>
          ))}
        </div>
      )}
    </>
  );
}

/** How many requests a thread waits on; for the header badge. */
export function PendingBadge({ threadId }: { threadId: string }): JSX.Element | null {
  const count = threadCards(threadId).value.length;
  if (count === 0) return null;
  return (
    <span class="badge badge-waiting" data-pending-count={count}>
      {count} waiting
    </span>
  );
}
