import type { ErrorCode, WireError } from "@knightcode/app-server-protocol";

/** An error the server answered: `code`, `message` and `data` exactly as sent. */
export class AppServerError extends Error {
  override readonly name = "AppServerError";
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(error: WireError) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }
}

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
