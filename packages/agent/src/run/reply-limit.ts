import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";

/** The most one model reply may stream: its text, reasoning and tool-call arguments together, in UTF-8. */
export const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/**
 * Counts what a model reply streams, to cut off one that passes its limit.
 * A reply with no end (a broken or prompt-injected model) would otherwise
 * grow the process, the transcript, the payload spool and the next
 * request's context without bound, and stream to every subscriber meanwhile.
 */
export class ReplyMeter {
  private bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** Counts the event's delta; true once the reply has passed the limit. */
  passed(event: AssistantMessageEvent): boolean {
    if (event.type === "text_delta" || event.type === "thinking_delta" || event.type === "toolcall_delta") {
      this.bytes += Buffer.byteLength(event.delta, "utf8");
    }
    return this.bytes > this.maxBytes;
  }
}

/**
 * The final event of a reply cut off for its length: a failed reply whose
 * message says why and what to do, without the text streamed so far, which
 * the transcript does not keep and the next request does not send.
 */
export function tooLongEvent(partial: AssistantMessage, maxBytes: number): AssistantMessageEvent {
  const limit = maxBytes % (1024 * 1024) === 0 ? `${maxBytes / (1024 * 1024)} MiB` : `${maxBytes} bytes`;
  const errorMessage = `The model's reply was too long: it passed ${limit}, so it was cut off and left out of the conversation. Ask for a shorter answer, or for the content in a file.`;
  return { type: "error", reason: "error", error: { ...partial, content: [], stopReason: "error", errorMessage } };
}
