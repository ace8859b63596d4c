import { computed, signal, type ReadonlySignal } from "@preact/signals";
import type { RequestId, ServerRequestMethod, ServerRequestParams, ServerRequestResult } from "@knightcode/app-server-protocol";

/** One question the server is waiting on, as a card shows it. */
export type PendingCard = {
  [M in ServerRequestMethod]: {
    /** The request's own identity (thread + item, or a dialog's content): the same question asked again after a reconnection keeps its card. */
    key: string;
    method: M;
    threadId: string;
    params: ServerRequestParams<M>;
    /** The JSON-RPC id of the request now asking; it changes when the server asks again. */
    requestId: RequestId;
    /** False once the connection that carried it dropped: shown, but not answerable until the server asks again. */
    live: boolean;
    answer: (result: ServerRequestResult<M>) => void;
  };
}[ServerRequestMethod];

/** Every card, in arrival order; the one owner of pending requests. */
const cards = signal<PendingCard[]>([]);

/** Adds a card, or renews the one with the same key (keeping its place and what the user typed into it). */
export function putCard(card: PendingCard): void {
  const list = cards.value;
  const at = list.findIndex((c) => c.key === card.key);
  cards.value = at < 0 ? [...list, card] : list.map((c, i) => (i === at ? card : c));
}

/** Removes a card if it is still the one asked with `requestId` (an older ask settling must not remove its renewal). */
export function removeCard(key: string, requestId: RequestId): void {
  cards.value = cards.value.filter((c) => !(c.key === key && c.requestId === requestId));
}

/**
 * serverRequest/cancelled: ids count per connection, so only a live card can
 * be meant; a stale one's id belonged to the connection that dropped.
 */
export function removeByRequestId(requestId: RequestId): void {
  cards.value = cards.value.filter((c) => !(c.live && c.requestId === requestId));
}

export function markStale(key: string, requestId: RequestId): void {
  cards.value = cards.value.map((c) => (c.key === key && c.requestId === requestId ? { ...c, live: false } : c));
}

/** Drops cards of a thread whose connection dropped and that the server did not ask again. */
export function dropStale(threadId: string): void {
  cards.value = cards.value.filter((c) => c.live || c.threadId !== threadId);
}

const byThread = new Map<string, ReadonlySignal<PendingCard[]>>();

/** The cards of one thread, as a signal that changes only with them. */
export function threadCards(threadId: string): ReadonlySignal<PendingCard[]> {
  let entry = byThread.get(threadId);
  if (!entry) byThread.set(threadId, (entry = computed(() => cards.value.filter((c) => c.threadId === threadId))));
  return entry;
}

export const allCards: ReadonlySignal<PendingCard[]> = cards;
