import type { ServerRequestParams } from "@knightcode/app-server-protocol";
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { Button } from "../../ui/button.js";
import { CardFrame } from "./card.js";
import type { PendingCard } from "./store.js";
import { ToolInput } from "./tool-input.js";
import { VisibleText } from "./visible.js";
import { visibleString } from "./visible-text.js";

type ApprovalCard = Extract<PendingCard, { method: "item/toolCall/requestApproval" }>;

/** The spec bounds a decline's message to this many characters. */
const MESSAGE_MAX = 4000;

type ApprovalParams = ServerRequestParams<"item/toolCall/requestApproval">;

/**
 * The words on each decision's button. Keyed by string, not by the
 * protocol's union, so a decision this page learns about before its types
 * do still gets its words; one it has no words for shows its own name.
 */
const LABELS: Readonly<Record<string, (params: ApprovalParams) => string>> = {
  accept: () => "Allow once",
  acceptForSession: (params) => `Always allow ${visibleString(params.tool)} in this session`,
  acceptPrefixForSession: (params) =>
    params.prefix ? `Allow “${visibleString(params.prefix)}” commands in this session` : "Allow this command prefix in this session",
  acceptNetworkForSession: () => "Allow, with network for this thread",
  decline: () => "Decline",
  cancel: () => "Decline and stop the turn",
};

function label(decision: string, params: ApprovalParams): string {
  return Object.hasOwn(LABELS, decision) ? LABELS[decision]!(params) : visibleString(decision);
}

function variant(decision: string): "primary" | "secondary" | "danger" {
  return decision === "accept" ? "primary" : decision === "cancel" ? "danger" : "secondary";
}

/** Whether a tool call may run: what it would do, and exactly the decisions the server offered. */
export function ApprovalRequest({ card }: { card: ApprovalCard }): JSX.Element {
  const { params } = card;
  const [message, setMessage] = useState("");
  // Only offered decisions are rendered: anything else would count as decline anyway.
  const offered = params.decisions;
  const canDecline = offered.includes("decline");
  const messageId = `decline-${params.itemId}`;
  return (
    <CardFrame card={card} kind="approval" title={`Allow ${visibleString(params.tool)}?`}>
      {params.reason && (
        <p class="request-reason">
          <VisibleText text={params.reason} />
        </p>
      )}
      <ToolInput input={params.input} inputRef={params.inputRef} />
      {params.prefix && offered.includes("acceptPrefixForSession") && (
        <p class="request-prefix">
          Command prefix this session would allow:{" "}
          <code>
            <VisibleText text={params.prefix} ordered />
          </code>
        </p>
      )}
      {canDecline && (
        <div class="field">
          <label for={messageId}>Message for the agent if you decline (optional)</label>
          <textarea id={messageId} rows={2} maxLength={MESSAGE_MAX} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
        </div>
      )}
      <div class="request-actions">
        {offered.map((decision, i) => (
          <Button
            key={decision}
            variant={variant(decision)}
            data-decision={decision}
            data-autofocus={i === 0 ? true : undefined}
            onClick={() => {
              const text = message.trim();
              card.answer(decision === "decline" && text ? { decision, message: text } : { decision });
            }}
          >
            {label(decision, params)}
          </Button>
        ))}
      </div>
    </CardFrame>
  );
}
