import { conn } from "../../connection/connection.js";
import { openThreadSignal } from "../../state/open-threads.js";
import { reportError } from "../../state/toasts.js";
import { createTranscriptModel } from "./model.js";

export type { TranscriptState, TranscriptStore, TurnView } from "./model.js";

/** The page's transcript model, over the page's connection, its open threads and the browser's frames. */
export const transcripts = createTranscriptModel({
  conn,
  openThread: openThreadSignal,
  reportError,
  frame: { request: (run) => requestAnimationFrame(run), cancel: (handle) => cancelAnimationFrame(handle) },
});

export const transcriptStore = transcripts.transcript;
export const watchTranscripts = transcripts.watch;
export const readPayload = transcripts.readPayload;
export const subagentLive = transcripts.subagents.live;
