import type { Api, AssistantMessage, Model } from "@mariozechner/pi-ai";
import { openModelStream } from "./provider-stream.js";
import type { ModelRegistry } from "./registry.js";

export interface OneShotRequest {
  registry: ModelRegistry;
  model: Model<Api>;
  apiKey: string;
  systemPrompt: string;
  /** The one user message. */
  text: string;
  maxTokens: number;
  timeoutMs: number;
  /** The caller's signal: aborting it stops the request. */
  signal?: AbortSignal;
}

/** How a one-shot request ended: its reply's text, or why there is none. */
export type OneShotOutcome = { kind: "answered"; text: string } | { kind: "timedOut" } | { kind: "cancelled" } | { kind: "failed"; message: string };

/**
 * One request to a model outside any conversation (the classifier gate, a
 * commit message): one user message, no retries, bounded by `timeoutMs`
 * and the caller's signal. It is in no transcript and its usage in no
 * thread's totals. Never throws: a failure is an outcome.
 */
export async function askOnce(request: OneShotRequest): Promise<OneShotOutcome> {
  const { registry, model, signal } = request;
  if (signal?.aborted) return { kind: "cancelled" };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  let reply: AssistantMessage;
  try {
    const ai = await registry.load();
    reply = await openModelStream(
      ai,
      registry.streamFor(model),
      model,
      { systemPrompt: request.systemPrompt, messages: [{ role: "user", content: [{ type: "text", text: request.text }], timestamp: Date.now() }] },
      { apiKey: request.apiKey, signal: controller.signal, maxTokens: Math.min(request.maxTokens, model.maxTokens), maxRetries: 0 },
    ).result();
  } catch (error) {
    reply = { stopReason: controller.signal.aborted ? "aborted" : "error", errorMessage: (error as Error).message } as AssistantMessage;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  if (signal?.aborted) return { kind: "cancelled" };
  if (timedOut) return { kind: "timedOut" };
  if (reply.stopReason === "error" || reply.stopReason === "aborted") return { kind: "failed", message: reply.errorMessage ?? reply.stopReason };
  const text = reply.content
    .filter((part) => part.type === "text")
    .map((part) => (part as { text: string }).text)
    .join("\n");
  return { kind: "answered", text };
}
