import type { RequestId, ServerRequestMethod, ServerRequestParams, ServerRequestResult } from "@knightcode/app-server-protocol";
import type { RequestOptions, ServerRequestContext } from "./client-options.js";

/** A server request offered to an interceptor before any `onRequest` handler sees it. */
export interface InterceptedRequest {
  id: RequestId;
  method: string;
  params: unknown;
  /** Aborted when the server withdraws the request (`serverRequest/cancelled`) or the connection closes. */
  signal: AbortSignal;
  /** Sends `result` as the answer; false, and nothing sent, once it was answered, withdrawn or the connection closed. */
  respond(result: unknown): boolean;
}

/** Returns true to take the request: it then reaches no handler, and answering it is the taker's. */
export type RequestInterceptor = (request: InterceptedRequest) => boolean;

/** How the event of a server request answers it. */
export interface TurnRequest<M extends ServerRequestMethod = ServerRequestMethod> extends ServerRequestContext {
  /** Sends the answer; false, and nothing sent, once it was answered, withdrawn (`signal` aborted) or the connection closed. */
  respond(result: ServerRequestResult<M>): boolean;
}

/**
 * A server request about the turn, as `runTurn({requests: true})` yields it
 * among the turn's notifications; checking `method` narrows `params` and
 * what `request.respond` takes.
 */
export type TurnRequestEvent = {
  [M in ServerRequestMethod]: { method: M; params: ServerRequestParams<M>; request: TurnRequest<M> };
}[ServerRequestMethod];

export interface TurnOptions extends RequestOptions {
  /**
   * The turn's server requests (approvals, `ask_user`'s questions, its
   * dialogs and plan review) come through `events`, in wire order with its
   * notifications, instead of going to the `onRequest` handlers.
   */
  requests?: boolean;
}

/** Every server request that can be about a turn: a new method fails to compile here until it is listed. */
export const TURN_REQUEST_METHODS: Readonly<Record<ServerRequestMethod, true>> = {
  "item/toolCall/requestApproval": true,
  "item/toolCall/requestUserInput": true,
  "ui/dialog": true,
};

/** The turn's request if it is one: the same thread and turn (a dialog without `turnId` belongs to no turn). */
export function turnRequestEvent(request: InterceptedRequest, threadId: string, turnId: string | undefined): TurnRequestEvent | undefined {
  const about = request.params as { threadId?: unknown; turnId?: unknown } | null | undefined;
  if (turnId === undefined || !Object.hasOwn(TURN_REQUEST_METHODS, request.method)) return undefined;
  if (about?.threadId !== threadId || about.turnId !== turnId) return undefined;
  const answer: TurnRequest = { requestId: request.id, signal: request.signal, respond: (result) => request.respond(result) };
  return { method: request.method, params: request.params, request: answer } as TurnRequestEvent;
}
