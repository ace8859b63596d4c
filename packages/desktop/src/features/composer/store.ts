import { conn } from "../../connection/connection.js";
import { openThread } from "../../state/app-state.js";
import { reloaded } from "../../state/open-threads.js";
import { transcriptStore } from "../transcript/store.js";
import { restoreReviewComments, takeReviewComments } from "../workspace/panel.js";
import { createComposerModel } from "./model.js";

export type { Outgoing, Sending } from "./model.js";

/** The page's composer model, over the page's connection and transcripts. */
export const composer = createComposerModel({
  conn,
  turnsShown: (threadId) => transcriptStore(threadId).state.peek().turns.length,
  follow: openThread,
  reloaded,
  takeComments: takeReviewComments,
  restoreComments: restoreReviewComments,
});

export const sending = composer.sending;
export const forgetSending = composer.forgetSending;
export const sendMessage = composer.send;
export const steerMessage = composer.steer;
