import type { Api, AssistantMessage, AssistantMessageEvent, Context, Model, SimpleStreamOptions } from "@mariozechner/pi-ai";
import type { StreamFn } from "@mariozechner/pi-agent-core";
import { nextTurn } from "@knightcode/system/util/next-turn";
import type { PiAi } from "../models/engine.js";
import type { ProviderStream } from "../models/models-json.js";
import { failedEvent, openModelStream } from "../models/provider-stream.js";
import { MAX_REPLY_BYTES, ReplyMeter, tooLongEvent } from "./reply-limit.js";

export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;

/**
 * How long the relay may run, all replies together, before it lets the
 * event loop turn. A socket read can hold hundreds of events, and
 * everything downstream of each (the turn, the transcript, every
 * subscriber's outbox) runs in microtasks that no I/O can pass: without a
 * break, one fast reply holds every other thread's stream, the clients'
 * requests and the timers until its whole read is relayed. Replies that
 * relay in the same turns of the loop share it (see RelaySlice.length).
 */
export const RELAY_SLICE_MS = 4;
/** The least one reply relays before it lets the loop turn, however many share the slice. */
export const MIN_RELAY_SLICE_MS = 0.1;

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
 * of kind `other`, never retried).
 */
export function stallGuardedStream(ai: PiAi, idleMs: number, ownStreamOf?: OwnStreamOf, maxReplyBytes = MAX_REPLY_BYTES): StreamFn {
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
    let lastEventAt = performance.now();
    const watch = (ms: number) => {
      timer = setTimeout(() => {
        const quiet = performance.now() - lastEventAt;
        if (quiet < idleMs) return watch(idleMs - quiet);
        stalled = true;
        controller.abort(new Error("stalled"));
      }, ms);
    };
    const arm = () => {
      lastEventAt = performance.now();
    };
    const finish = () => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuterAbort);
    };
    watch(idleMs);
    void (async () => {
      // A slice is relay work with no turn of the event loop in it: a wait for the model's next bytes ends one.
      const slice = new RelaySlice();
      try {
        for await (const event of inner) {
          arm();
          if (slice.spent(lastEventAt) > slice.length()) {
            await nextTurn();
            slice.restart(performance.now());
          }
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

/**
 * Turns of the event loop seen so far, counted by one immediate: armed when
 * a relay slice begins, and again at each turn in which one began, so that
 * the count of replies relaying in the last turn is never an old one.
 */
let loopTurns = 0;
/** How many replies began a slice in this turn of the loop, and in the turn before it. */
let relayingNow = 0;
let relayingBefore = 0;
let turnCounter: NodeJS.Immediate | undefined;

function countNextTurn(): void {
  if (turnCounter !== undefined) return;
  turnCounter = setImmediate(() => {
    turnCounter = undefined;
    loopTurns++;
    relayingBefore = relayingNow;
    relayingNow = 0;
    if (relayingBefore > 0) countNextTurn();
  });
}

/**
 * How long the relay has run since the event loop last turned. The time
 * spent waiting for the model is not relay work: the first event, which
 * comes after the model's whole wait, and the first after any pause are
 * relayed at once, not after a turn of the loop. A turn is seen by an
 * immediate: it runs only once the microtasks that relay a socket read
 * have all run. One immediate serves every stream, whatever their number.
 */
export class RelaySlice {
  private start = 0;
  /** The turn count the slice began in; -1 before the first event. */
  private turn = -1;

  /** Milliseconds of relay in this slice at `now`; a slice whose loop turned begins anew at `now`. */
  spent(now: number): number {
    if (this.turn !== loopTurns) this.restart(now);
    return now - this.start;
  }

  /** A new slice begins at `now` (the loop just turned). */
  restart(now: number): void {
    if (this.turn !== loopTurns) relayingNow++;
    this.start = now;
    this.turn = loopTurns;
    countNextTurn();
  }

  /**
   * How long this slice may last: RELAY_SLICE_MS shared by the replies
   * that relay in these turns of the loop, and never under
   * MIN_RELAY_SLICE_MS. Each reply's slice alone would let fifty streaming
   * at once hold the loop fifty times as long, and a client's request, a
   * timer, or the next socket read wait behind them all.
   */
  length(): number {
    return Math.max(MIN_RELAY_SLICE_MS, RELAY_SLICE_MS / Math.max(1, relayingNow, relayingBefore));
  }
}
