export { AppServerError } from "@knightcode/app-server-protocol";

/**
 * Why a call failed on this side of the connection:
 * - `timeout`, `aborted`, `closed`: the request or wait ended before an answer;
 * - `unauthorized`: the server refused the WebSocket upgrade (wrong or missing
 *   token: HTTP 401; a browser Origin not allowed: 403); `status` says which;
 * - `notStarted`: `runTurn`'s input started no turn (a command or an extension
 *   handled it, or it was cancelled).
 */
export type ClientErrorKind = "timeout" | "closed" | "aborted" | "unauthorized" | "notStarted";

/** A failure on this side of the connection; never sent over the wire. */
export class ClientError extends Error {
  override readonly name = "ClientError";

  constructor(
    readonly kind: ClientErrorKind,
    message: string,
    /** The HTTP status of a refused WebSocket upgrade. */
    readonly status?: number,
  ) {
    super(message);
  }
}
