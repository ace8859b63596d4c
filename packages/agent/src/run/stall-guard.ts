import type { Api, AssistantMessage, AssistantMessageEvent, Context, Model, SimpleStreamOptions } from "@mariozechner/pi-ai";
import type { StreamFn } from "@mariozechner/pi-agent-core";
import type { PiAi } from "../models/engine.js";
import type { ProviderStream } from "../models/models-json.js";
import { failedEvent, openModelStream } from "../models/provider-stream.js";
import { RelaySlice } from "./relay-slice.js";
import { MAX_REPLY_BYTES, ReplyMeter, tooLongEvent } from "./reply-limit.js";

export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;

/** An extension provider's own stream function for a model, if its provider has one. */
export type OwnStreamOf = (model: Model<Api>) => ProviderStream | undefined;

/**
 * Wraps the model stream so that a response that stops sending (a stalled
 * stream) fails after `idleMs` without data instead of hanging the turn.
 * The failure is an error (retryable, classified `network`), not an abort:
 * an abort means the user interrupted. A provider that throws fails the
 * request the same way, as an error event, never as an exception. A reply
 * that streams more than `maxReplyBytes` is cut off the same way: the
 * request is aborted and the reply fails, saying it was too long (a failure
 * of kind `other`, never retried). `clock` is the time the idle watch and
 * the relay slices read (tests give their own).
 */
export function stallGuardedStream(
  ai: PiAi,
  idleMs: number,
  ownStreamOf?: OwnStreamOf,
  maxReplyBytes = MAX_REPLY_BYTES,
  clock: () => number = () => performance.now(),
): StreamFn {
  return (model: Model<Api>, context: Context, options?: SimpleStreamOptions) => {
    const controller = new AbortController();
    const outer = options?.signal;
    const onOuterAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener("abort", onOuterAbort, { once: true });
    const inner = openModelStream(ai, ownStreamOf?.(model), model, context, { ...options, signal: controller.signal, maxRetries: 0 });
    const out = ai.createAssistantMessageEventStream();
    let stalled = false;
    const meter = new ReplyMeter(maxReplyBytes);
    // One timer for the whole reply: an event moves the deadline, and the timer, when it fires early, waits out the rest.
    let timer: NodeJS.Timeout | undefined;
    let lastEventAt = clock();
    const watch = (ms: number) => {
      timer = setTimeout(() => {
        const quiet = clock() - lastEventAt;
        if (quiet < idleMs) return watch(idleMs - quiet);
        stalled = true;
        controller.abort(new Error("stalled"));
      }, ms);
    };
    const arm = () => {
      lastEventAt = clock();
    };
    const finish = () => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuterAbort);
    };
    watch(idleMs);
    void (async () => {
      // A slice is relay work with no turn of the event loop in it: a wait for the model's next bytes ends one.
      const slice = new RelaySlice(clock);
      let justStarted = false;
      try {
        for await (const event of inner) {
          arm();
          // Never between a block's start and its first delta: both come from one event of the model's, and the delta is what a client waits for.
          if (!justStarted && slice.due(lastEventAt)) await slice.pause();
          justStarted = event.type === "text_start" || event.type === "thinking_start" || event.type === "toolcall_start";
          if (event.type !== "done" && event.type !== "error" && meter.passed(event)) {
            controller.abort(new Error("the reply was too long"));
            out.push(tooLongEvent(event.partial, maxReplyBytes));
            return;
          }
          if (event.type === "error" && stalled && !outer?.aborted) {
            out.push(stalledError(event.error, idleMs));
          } else {
            out.push(event);
          }
        }
        if (stalled && !outer?.aborted) {
          // The provider ended without a terminal event after our abort.
          const final = await inner.result();
          out.push(stalledError(final, idleMs));
        }
      } catch (error) {
        out.push(failedEvent(model, undefined, error, outer));
      } finally {
        finish();
        out.end();
      }
    })();
    return out;
  };
}

function stalledError(message: AssistantMessage, idleMs: number): AssistantMessageEvent {
  // One decimal: a timeout under a second must not read "no data for 0 s".
  const errorMessage = `model stream stalled: no data for ${Number((idleMs / 1000).toFixed(1))} s`;
  return { type: "error", reason: "error", error: { ...message, stopReason: "error", errorMessage } };
}
