import { AppServerError } from "@knightcode/app-server-client/browser";
import type { ImageInput } from "@knightcode/app-server-protocol";
import { conn } from "../../connection/connection.js";
import { openThread } from "../../state/app-state.js";
import { restoreReviewComments, takeReviewComments } from "../workspace/panel.js";

export interface Outgoing {
  threadId: string;
  text: string;
  images: ImageInput[];
}

const withImages = (images: ImageInput[]) => (images.length > 0 ? { images } : {});

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
  const clientMessageId = crypto.randomUUID();
  const params = { threadId: message.threadId, text: message.text, clientMessageId, ...withImages(message.images), ...extra };
  if (!busy) {
    try {
      const started = await conn().request("turn/start", params);
      if (started.threadId !== message.threadId) openThread(started.threadId);
      return "started";
    } catch (error) {
      if (!(error instanceof AppServerError && error.code === "turnInProgress")) throw error;
    }
  }
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
