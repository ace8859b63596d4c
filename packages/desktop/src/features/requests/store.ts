import type { ReadonlySignal } from "@preact/signals";
import { conn } from "../../connection/connection.js";
import { activeThreadId } from "../../state/app-state.js";
import { toast } from "../../state/toasts.js";
import { rows } from "../sidebar/store.js";
import { subagentLive } from "../transcript/store.js";
import { createRequestsModel, type PendingCard } from "./model.js";

/** A sub-agent's row (from the list) or what its parent's subscription told of it. */
function parentOf(threadId: string): string | undefined {
  return rows.value.find((row) => row.id === threadId)?.parentThreadId ?? subagentLive.value.get(threadId)?.parentThreadId;
}

/** The name a sub-agent goes by, for "Sub-agent … asks". */
export function subagentName(threadId: string): string {
  return rows.value.find((row) => row.id === threadId)?.title || subagentLive.value.get(threadId)?.name || "(unnamed)";
}

/** The page's one requests model, over the page's connection; the cards read it. */
export const requestsModel = createRequestsModel({ conn, activeThreadId, toast, parentOf });

export function threadCards(threadId: string): ReadonlySignal<PendingCard[]> {
  return requestsModel.threadCards(threadId);
}

/** Installs the page's server-request handlers; returns the function that removes them. */
export function installRequestHandlers(): () => void {
  return requestsModel.install();
}

export type { PendingCard } from "./model.js";
