import { computed, signal, type ReadonlySignal } from "@preact/signals";
import type { ServerRequestContext } from "@knightcode/app-server-client/browser";
import type { RequestId, ServerRequestMethod, ServerRequestParams, ServerRequestResult, ThreadStatus } from "@knightcode/app-server-protocol";
import type { Connection } from "../../connection/connection.js";

/**
 * The requests model: the owner of every question the server waits on a
 * person for. It installs the server-request handlers that turn a question
 * into a card, answers it, and drops it when the server withdraws it; the
 * cards are views over it. It reaches the server only through the
 * connection it is given, so a test hands it a client over the in-memory transport.
 */

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

/** What the model needs of a connection: the page's `Connection`, or a test's in-process client. */
export type RequestsConnection = Pick<Connection, "request" | "on" | "onRequest" | "onReconnect">;

export interface RequestsDeps {
  /** Asked at each use: the page's connection is set after the model is made. */
  conn: () => RequestsConnection;
  /** The thread the page shows: a question from another one is announced. */
  activeThreadId: ReadonlySignal<string | undefined>;
  toast: (text: string, kind: "warning") => void;
  /** The parent of a sub-agent's thread: its questions show under the parent too. May read signals. */
  parentOf?: (threadId: string) => string | undefined;
}

export interface RequestsModel {
  /** Every card, in arrival order. */
  cards: ReadonlySignal<PendingCard[]>;
  /** The cards of one thread and of its sub-agents, as a signal that changes only with them. */
  threadCards(threadId: string): ReadonlySignal<PendingCard[]>;
  /** Installs the server-request and notification handlers and adopts the threads left waiting; returns the function that removes them. */
  install(): () => void;
}

/**
 * The identity of a question independent of the JSON-RPC id that carried it:
 * after a reconnection the server asks again under a new id, and the card the
 * user was filling in must be the one that answers.
 */
export function cardKey<M extends ServerRequestMethod>(method: M, params: ServerRequestParams<M>): string {
  if (method === "ui/dialog") {
    const p = params as ServerRequestParams<"ui/dialog">;
    const detail =
      p.kind === "select" ? p.options.join("\u0000") : p.kind === "confirm" ? p.message : p.kind === "input" ? (p.placeholder ?? "") : (p.prefill ?? "");
    return `dialog|${p.threadId}|${p.turnId ?? ""}|${p.kind}|${p.title}|${detail}`;
  }
  const p = params as ServerRequestParams<"item/toolCall/requestApproval" | "item/toolCall/requestUserInput">;
  return `${method}|${p.threadId}|${p.itemId}`;
}

function waiting(status: ThreadStatus): boolean {
  return status.type === "active" && status.waitingOn.length > 0;
}

export function createRequestsModel(deps: RequestsDeps): RequestsModel {
  const cards = signal<PendingCard[]>([]);
  const byThread = new Map<string, ReadonlySignal<PendingCard[]>>();

  /** Adds a card, or renews the one with the same key (keeping its place and what the user typed into it). */
  function putCard(card: PendingCard): void {
    const list = cards.value;
    const at = list.findIndex((c) => c.key === card.key);
    cards.value = at < 0 ? [...list, card] : list.map((c, i) => (i === at ? card : c));
  }

  /** Removes a card if it is still the one asked with `requestId` (an older ask settling must not remove its renewal). */
  function removeCard(key: string, requestId: RequestId): void {
    cards.value = cards.value.filter((c) => !(c.key === key && c.requestId === requestId));
  }

  /** serverRequest/cancelled: ids count per connection, so only a live card can be meant; a stale one's id belonged to the connection that dropped. */
  function removeByRequestId(requestId: RequestId): void {
    cards.value = cards.value.filter((c) => !(c.live && c.requestId === requestId));
  }

  function markStale(key: string, requestId: RequestId): void {
    cards.value = cards.value.map((c) => (c.key === key && c.requestId === requestId ? { ...c, live: false } : c));
  }

  /** Drops cards of a thread whose connection dropped and that the server did not ask again. */
  function dropStale(threadId: string): void {
    cards.value = cards.value.filter((c) => c.live || c.threadId !== threadId);
  }

  /** A thread's own question, or one of its sub-agent's: someone watching the parent can answer it. */
  function shownUnder(asking: string, shown: string | undefined): boolean {
    return asking === shown || (shown !== undefined && deps.parentOf?.(asking) === shown);
  }

  function threadCards(threadId: string): ReadonlySignal<PendingCard[]> {
    let entry = byThread.get(threadId);
    if (!entry) byThread.set(threadId, (entry = computed(() => cards.value.filter((c) => shownUnder(c.threadId, threadId)))));
    return entry;
  }

  /** Turns a server request into a card; the promise settles when the user answers it. */
  function ask<M extends ServerRequestMethod>(method: M, params: ServerRequestParams<M>, context: ServerRequestContext): Promise<ServerRequestResult<M>> {
    const key = cardKey(method, params);
    const { requestId } = context;
    return new Promise((resolve) => {
      // The handler runs a tick after the request came: a serverRequest/cancelled read meanwhile already withdrew it.
      if (context.signal.aborted) return;
      putCard({
        key,
        method,
        threadId: params.threadId,
        params,
        requestId,
        live: true,
        answer: (result: ServerRequestResult<M>) => {
          removeCard(key, requestId);
          resolve(result);
        },
      } as PendingCard);
      // Aborted both when the server withdraws it (serverRequest/cancelled removes the card)
      // and when the connection drops (the card stays, waiting for the server to ask again).
      context.signal.addEventListener("abort", () => markStale(key, requestId), { once: true });
      if (!shownUnder(params.threadId, deps.activeThreadId.peek())) deps.toast("Another thread is waiting for your answer.", "warning");
    });
  }

  /**
   * Subscribes to every thread the server is waiting on a person for that
   * this page is not subscribed to (`serverRequest/list`): after a reload the
   * page subscribes to nothing, and the requests the last page left behind
   * are held for it (it initializes with `holdRequests`). Resuming a thread
   * is what makes the server ask again, at once; the card then shows where
   * the thread does, and the thread's row says it waits.
   */
  async function adoptWaitingThreads(subscribed: ReadonlySet<string>): Promise<void> {
    const c = deps.conn();
    let threads: string[];
    try {
      threads = [...new Set((await c.request("serverRequest/list", {})).requests.map((request) => request.threadId))];
    } catch {
      return;
    }
    for (const threadId of threads) {
      if (subscribed.has(threadId)) continue;
      await c.request("thread/resume", { threadId }).catch(() => deps.toast("A thread waiting for your answer could not be opened.", "warning"));
    }
  }

  function install(): () => void {
    const c = deps.conn();
    const stops = [
      c.onRequest("item/toolCall/requestApproval", (params, context) => ask("item/toolCall/requestApproval", params, context)),
      c.onRequest("item/toolCall/requestUserInput", (params, context) => ask("item/toolCall/requestUserInput", params, context)),
      c.onRequest("ui/dialog", (params, context) => ask("ui/dialog", params, context)),
      c.on("serverRequest/cancelled", ({ requestId }) => removeByRequestId(requestId)),
      // A card left from a dropped connection goes once its thread no longer waits on anyone.
      c.on("thread/status/changed", ({ threadId, status }) => {
        if (!waiting(status)) dropStale(threadId);
      }),
      c.onReconnect((resumed) => {
        for (const entry of resumed) if (entry.ok && !waiting(entry.result.thread.status)) dropStale(entry.result.thread.id);
        void adoptWaitingThreads(new Set(resumed.map((entry) => entry.threadId)));
      }),
    ];
    void adoptWaitingThreads(new Set());
    return () => {
      for (const stop of stops) stop();
    };
  }

  return { cards, threadCards, install };
}
