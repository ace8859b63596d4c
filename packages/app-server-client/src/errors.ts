export { AppServerError } from "@knightcode/app-server-protocol";

export type ClientErrorKind = "timeout" | "closed" | "aborted";

/** A failure on this side of the connection; never sent over the wire. */
export class ClientError extends Error {
  override readonly name = "ClientError";

  constructor(
    readonly kind: ClientErrorKind,
    message: string,
  ) {
    super(message);
  }
}
