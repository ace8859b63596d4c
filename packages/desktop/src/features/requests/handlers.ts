import type { ServerRequestMethod, ServerRequestParams, ServerRequestResult, ThreadStatus } from "@knightcode/app-server-protocol";
import type { ServerRequestContext } from "@knightcode/app-server-client/browser";
import { conn } from "../../connection/connection.js";
import { activeThreadId } from "../../state/app-state.js";
import { toast } from "../../state/toasts.js";
import { dropStale, markStale, putCard, removeByRequestId, removeCard, type PendingCard } from "./store.js";

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
    if (params.threadId !== activeThreadId.value) toast("Another thread is waiting for your answer.", "warning");
  });
}

function waiting(status: ThreadStatus): boolean {
  return status.type === "active" && status.waitingOn.length > 0;
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
  const c = conn();
  let threads: string[];
  try {
    threads = [...new Set((await c.request("serverRequest/list", {})).requests.map((request) => request.threadId))];
  } catch {
    return;
  }
  for (const threadId of threads) {
    if (subscribed.has(threadId)) continue;
    await c.request("thread/resume", { threadId }).catch(() => toast("A thread waiting for your answer could not be opened.", "warning"));
  }
}

/** Installs the page's server-request handlers; returns the function that removes them. */
export function installRequestHandlers(): () => void {
  const c = conn();
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
