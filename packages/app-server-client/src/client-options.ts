import type { RequestId } from "@knightcode/app-server-protocol";

/** Sees every message in both directions, parsed; tests validate them here. */
export interface MessageTap {
  outgoing?(message: Record<string, unknown>): void;
  incoming?(message: Record<string, unknown>): void;
  /** A line from the server that is not a JSON object: a protocol violation. */
  invalid?(text: string): void;
}

/** What a throwing server-request handler was answering. */
export interface HandlerErrorContext {
  method: string;
  params: unknown;
  requestId: RequestId;
}

export interface ClientOptions {
  /** Rejects a request with a `timeout` ClientError after this long; none by default. */
  requestTimeoutMs?: number;
  tap?: MessageTap;
  /**
   * Called when an `onRequest` handler throws (or rejects) with anything but an
   * AppServerError: a bug on this side. The server is still answered as before
   * (an `internal` error, which an approval takes as a decline); this hook is
   * where the bug gets seen. Not called for an AppServerError, which a handler
   * throws on purpose to answer with that error.
   */
  onHandlerError?: (error: unknown, context: HandlerErrorContext) => void;
}

export interface WaitOptions {
  /** Rejects with a `timeout` ClientError after this long; none by default. */
  timeoutMs?: number;
  /** Rejects with an `aborted` ClientError when aborted. */
  signal?: AbortSignal;
}

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ServerRequestContext {
  requestId: RequestId;
  /** Aborted when the server withdraws the request (`serverRequest/cancelled`) or the connection closes. */
  signal: AbortSignal;
}
