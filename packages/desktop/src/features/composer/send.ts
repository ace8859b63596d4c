import { signal } from "@preact/signals";
import { AppServerError } from "@knightcode/app-server-client/browser";
import type { ImageInput } from "@knightcode/app-server-protocol";
import { conn } from "../../connection/connection.js";
import { openThread } from "../../state/app-state.js";
import { transcriptStore } from "../transcript/store.js";
import { restoreReviewComments, takeReviewComments } from "../workspace/panel.js";

export interface Outgoing {
  threadId: string;
  text: string;
  images: ImageInput[];
}

const withImages = (images: ImageInput[]) => (images.length > 0 ? { images } : {});

/**
 * A message on its way: shown at once under the conversation, marked as
 * sending until the server answers, and gone once the transcript holds the
 * item with its clientMessageId (or the turn it started has ended).
 */
export interface Sending {
  clientMessageId: string;
  text: string;
  /** The server answered turn/start: the turn runs, its items are on their way. */
  confirmed: boolean;
  /** How many turns the transcript showed when it was sent: a later ended turn settles it even without the item. */
  turnsBefore: number;
}

/** Per thread, the messages sent and not yet seen in the transcript. */
export const sending = signal<ReadonlyMap<string, readonly Sending[]>>(new Map());

function changeSending(threadId: string, change: (list: readonly Sending[]) => readonly Sending[]): void {
  const next = new Map(sending.peek());
  const list = change(next.get(threadId) ?? []);
  if (list.length > 0) next.set(threadId, list);
  else next.delete(threadId);
  sending.value = next;
}

/** The transcript has it (or settled it): it need not show as sending any longer. */
export function forgetSending(threadId: string, clientMessageId: string): void {
  changeSending(threadId, (list) => list.filter((m) => m.clientMessageId !== clientMessageId));
}

/**
 * Sends a message the way the thread's state allows: a turn of its own when
 * idle, a queued follow-up while a turn runs. A start refused with
 * turnInProgress (the thread got busy meanwhile) is queued instead: the
 * queue starts it at once should the thread be idle by then. A command that
 * replaces the session (/new) answers with the thread that now runs: the
 * page follows it there. Review comments made in the diff view travel with
 * the message, and come back to the view when the server refuses it.
 */
export async function sendMessage(message: Outgoing, busy: boolean): Promise<"started" | "queued"> {
  const comments = takeReviewComments(message.threadId);
  try {
    return await deliver(message, busy, comments.length > 0 ? { comments } : {});
  } catch (error) {
    restoreReviewComments(message.threadId, comments);
    throw error;
  }
}

async function deliver(message: Outgoing, busy: boolean, extra: { comments?: ReturnType<typeof takeReviewComments> }): Promise<"started" | "queued"> {
  const { threadId } = message;
  const clientMessageId = crypto.randomUUID();
  const params = { threadId, text: message.text, clientMessageId, ...withImages(message.images), ...extra };
  if (!busy) {
    // Shown before the request leaves: the user sees their message at once, not after the round trip.
    const turnsBefore = transcriptStore(threadId).state.peek().turns.length;
    changeSending(threadId, (list) => [...list, { clientMessageId, text: message.text, confirmed: false, turnsBefore }]);
    try {
      const started = await conn().request("turn/start", params);
      if (started.status === "started" && started.threadId === threadId) {
        changeSending(threadId, (list) => list.map((m) => (m.clientMessageId === clientMessageId ? { ...m, confirmed: true } : m)));
      } else forgetSending(threadId, clientMessageId);
      if (started.threadId !== threadId) openThread(started.threadId);
      return "started";
    } catch (error) {
      forgetSending(threadId, clientMessageId);
      if (!(error instanceof AppServerError && error.code === "turnInProgress")) throw error;
    }
  }
  // A queued follow-up shows in the queue list, not as sending.
  await conn().request("turn/queue/add", params);
  return "queued";
}

/**
 * Hands the message to the running turn. The turn the page knows may be
 * stale: turnMismatch names the one that runs, tried once more. A turn that
 * ended first (turnEnded, or nothing running) makes the message a follow-up.
 */
export async function steerMessage(message: Outgoing, turnId: string | undefined): Promise<"steered" | "queued"> {
  let expected = turnId;
  for (let attempt = 0; attempt < 2 && expected; attempt++) {
    try {
      await conn().request("turn/steer", { threadId: message.threadId, text: message.text, expectedTurnId: expected, ...withImages(message.images) });
      return "steered";
    } catch (error) {
      if (!(error instanceof AppServerError)) throw error;
      if (error.code === "turnMismatch") {
        const running = (error.data as { runningTurnId?: unknown } | undefined)?.runningTurnId;
        expected = typeof running === "string" ? running : undefined;
        continue;
      }
      if (error.code === "invalidParams" && (error.data as { reason?: unknown } | undefined)?.reason === "turnEnded") break;
      throw error;
    }
  }
  await sendMessage(message, false);
  return "queued";
}
