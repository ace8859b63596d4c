import type { ReadonlySignal } from "@preact/signals";
import { conn } from "../../connection/connection.js";
import { activeThreadId } from "../../state/app-state.js";
import { toast } from "../../state/toasts.js";
import { createRequestsModel, type PendingCard } from "./model.js";

/** The page's one requests model, over the page's connection; the cards read it. */
export const requestsModel = createRequestsModel({ conn, activeThreadId, toast });

export function threadCards(threadId: string): ReadonlySignal<PendingCard[]> {
  return requestsModel.threadCards(threadId);
}

/** Installs the page's server-request handlers; returns the function that removes them. */
export function installRequestHandlers(): () => void {
  return requestsModel.install();
}

export type { PendingCard } from "./model.js";
