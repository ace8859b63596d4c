import type {
  Api,
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageEventStream,
  Context,
  Model,
  SimpleStreamOptions,
  Usage,
} from "@mariozechner/pi-ai";
import type { PiAi } from "./engine.js";
import type { ProviderStream } from "./models-json.js";
import { modelStreamOf } from "./providers.js";

/**
 * Opens one model request: through the provider's own stream function when
 * an extension gave it one, else through pi-ai. Either way the answer is
 * pi-ai's event stream, ending in one `done` or `error` event. A stream
 * function that throws, at once or midway, or stops without a final event,
 * ends in an error event carrying what went wrong, as a provider's own
 * failures do: the agent records it as the failed reply it is. Left to
 * throw, the agent would put a failed reply of its own into the context
 * without ever recording it.
 */
export function openModelStream(
  ai: PiAi,
  own: ProviderStream | undefined,
  model: Model<Api>,
  context: Context,
  options: SimpleStreamOptions,
): AssistantMessageEventStream {
  if (own) {
    const out = ai.createAssistantMessageEventStream();
    void relay(out, model, () => own(model, withoutFailedReplies(context), options), options.signal);
    return out;
  }
  try {
    return modelStreamOf(ai, model.api)(model, context, options);
  } catch (error) {
    const out = ai.createAssistantMessageEventStream();
    out.push(failedEvent(model, undefined, error, options.signal));
    out.end();
    return out;
  }
}

/** Copies a provider's events until its final one; whatever it throws, or a missing end, becomes the final error. */
async function relay(
  out: AssistantMessageEventStream,
  model: Model<Api>,
  open: () => AsyncIterable<AssistantMessageEvent> | Promise<AsyncIterable<AssistantMessageEvent>>,
  signal: AbortSignal | undefined,
): Promise<void> {
  let partial: AssistantMessage | undefined;
  try {
    for await (const event of await open()) {
      out.push(event);
      if (event.type === "done" || event.type === "error") return;
      partial = event.partial;
    }
    out.push(failedEvent(model, partial, new Error("the provider's stream ended without a final message"), signal));
  } catch (error) {
    out.push(failedEvent(model, partial, error, signal));
  } finally {
    out.end();
  }
}

/**
 * The context a provider's own stream gets: without failed or interrupted
 * replies, which pi-ai's providers leave out too, so a failure never comes
 * back as the model's own words in the next request.
 */
function withoutFailedReplies(context: Context): Context {
  const messages = context.messages.filter((m) => m.role !== "assistant" || (m.stopReason !== "error" && m.stopReason !== "aborted"));
  return messages.length === context.messages.length ? context : { ...context, messages };
}

/** The final event of a request that failed: an interrupt's when the signal was aborted, an error's otherwise. */
export function failedEvent(model: Model<Api>, partial: AssistantMessage | undefined, error: unknown, signal: AbortSignal | undefined): AssistantMessageEvent {
  const aborted = signal?.aborted === true;
  const message: AssistantMessage = {
    role: "assistant",
    content: partial?.content ?? [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: partial?.usage ?? emptyUsage(),
    stopReason: aborted ? "aborted" : "error",
    errorMessage: error instanceof Error ? error.message : String(error),
    timestamp: partial?.timestamp ?? Date.now(),
  };
  return aborted ? { type: "error", reason: "aborted", error: message } : { type: "error", reason: "error", error: message };
}

/** The usage of a reply that used nothing: a new object each time, since a reply's usage is filled in place. */
export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}
