import { AppServerError, type ErrorCode } from "@knightcode/app-server-protocol";

/** Builds the one wire error type; handlers throw it to answer an error. */
export function rpcError(code: ErrorCode, message: string, data?: Record<string, unknown>): AppServerError {
  return new AppServerError(data === undefined ? { code, message } : { code, message, data });
}

/** The `data` of a turnInProgress error: the running turn's id, when one is known. */
export function turnIdData(turnId: string | undefined): { turnId: string } | undefined {
  return turnId === undefined || turnId === "" ? undefined : { turnId };
}

/**
 * A request the server asked of a client that got no answer: the
 * connection closed, or the server withdrew it. Local, never sent; an
 * error the client answered is an AppServerError instead.
 */
export class ServerRequestError extends Error {
  override readonly name = "ServerRequestError";

  constructor(
    readonly reason: "closed" | "withdrawn",
    message: string,
  ) {
    super(message);
  }
}

export { AppServerError };
