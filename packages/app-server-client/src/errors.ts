export { AppServerError } from "@knightcode/app-server-protocol";

/**
 * Why a call failed on this side of the connection:
 * - `timeout`, `aborted`, `closed`: the request or wait ended before an answer;
 * - `unauthorized`: the server refused the WebSocket upgrade (a missing token:
 *   HTTP 401; a browser Origin not allowed: 403; `status` says which), or
 *   refused this client's proof of the token;
 * - `untrusted`: what the client was pointed at did not show that it is the
 *   user's own server: a listener that could not prove it holds the token (a
 *   server with another token, or another user's listener on that address),
 *   a ready file or socket folder another user could have written, a URL that
 *   is not on this machine. Nothing was sent to it, the token least of all;
 * - `notStarted`: `runTurn`'s input started no turn (a command or an extension
 *   handled it, or it was cancelled).
 */
export type ClientErrorKind = "timeout" | "closed" | "aborted" | "unauthorized" | "untrusted" | "notStarted";

/** A failure on this side of the connection; never sent over the wire. */
export class ClientError extends Error {
  override readonly name = "ClientError";

  constructor(
    readonly kind: ClientErrorKind,
    message: string,
    /** The HTTP status of a refused WebSocket upgrade. */
    readonly status?: number,
    /** What closed the connection, when the transport knows (a spawn that failed: its ENOENT). */
    cause?: Error,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}
