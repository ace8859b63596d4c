import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { transcriptStore } from "../transcript/store.js";
import { forgetSending, sending, type Sending } from "./store.js";
import "./sending.css";

/** The clientMessageIds of the user messages the transcript holds. */
function seenIds(threadId: string): Set<string> {
  const seen = new Set<string>();
  for (const turn of transcriptStore(threadId).state.value.turns)
    for (const item of turn.items) if (item.type === "userMessage" && "clientMessageId" in item && item.clientMessageId) seen.add(item.clientMessageId);
  return seen;
}

/** Settled: its item is in the transcript, or a turn after it ended without one (a command's turn, say). */
function settled(message: Sending, seen: Set<string>, turns: ReadonlyArray<{ status: string }>): boolean {
  if (seen.has(message.clientMessageId)) return true;
  const last = turns.at(-1);
  return message.confirmed && turns.length > message.turnsBefore && last !== undefined && last.status !== "inProgress";
}

/**
 * The user's own messages on their way, drawn under the conversation as
 * soon as they are sent; "Sending…" until the server takes them.
 */
export function SendingMessages({ threadId }: { threadId: string }): JSX.Element | null {
  const list = sending.value.get(threadId) ?? [];
  const turns = transcriptStore(threadId).state.value.turns;
  const seen = list.length > 0 ? seenIds(threadId) : new Set<string>();
  const done = list.filter((m) => settled(m, seen, turns));
  // Forgotten after the render that no longer shows them, not during it.
  useEffect(() => {
    for (const m of done) forgetSending(threadId, m.clientMessageId);
  }, [done.map((m) => m.clientMessageId).join(" ")]);
  const shown = list.filter((m) => !done.includes(m));
  if (shown.length === 0) return null;
  return (
    <ol class="sending-list" aria-label="Your messages on their way">
      {shown.map((m) => (
        <li key={m.clientMessageId} class="user-message sending-message" data-sending={m.confirmed ? "sent" : "sending"} aria-busy={!m.confirmed}>
          <p class="user-text">{m.text}</p>
          <span class="sending-state">{m.confirmed ? "Sent" : "Sending…"}</span>
        </li>
      ))}
    </ol>
  );
}
