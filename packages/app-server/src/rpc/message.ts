import type { RequestId } from "@knightcode/app-server-protocol";

/** What one incoming line turned out to be. */
export type Incoming =
  | { type: "request"; id: RequestId; method: string; params: unknown }
  | { type: "notification"; method: string; params: unknown }
  | { type: "response"; id: RequestId; result?: unknown; error?: unknown }
  | { type: "invalid"; message: string };

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** Parses and classifies one line; never throws. */
export function parseIncoming(text: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { type: "invalid", message: `not valid JSON: ${(error as Error).message.slice(0, 200)}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { type: "invalid", message: "a message must be a JSON object" };
  }
  const message = value as Record<string, unknown>;
  const hasId = Object.hasOwn(message, "id");
  if (Object.hasOwn(message, "method")) {
    if (typeof message.method !== "string") return { type: "invalid", message: "method must be a string" };
    const params = Object.hasOwn(message, "params") ? message.params : {};
    if (!hasId) return { type: "notification", method: message.method, params };
    if (!isRequestId(message.id)) return { type: "invalid", message: "a request id must be a string or a finite number" };
    return { type: "request", id: message.id, method: message.method, params };
  }
  if (hasId && (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))) {
    if (!isRequestId(message.id)) return { type: "invalid", message: "a response id must be a string or a finite number" };
    return { type: "response", id: message.id, result: message.result, error: message.error };
  }
  return { type: "invalid", message: "not a request, response or notification" };
}
