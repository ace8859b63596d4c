import { rpcError, type AppServerError } from "../rpc/errors.js";

export type PayloadErrorCode =
  /** Never issued, expired, evicted, or not an id at all: the caller rereads the thread for new references. */
  | "unknownPayload"
  /** The offset is past the payload's last byte. */
  | "offsetOutOfRange"
  /** The offset is not a non-negative safe integer. */
  | "invalidOffset"
  /** One value larger than the whole spool. */
  | "tooLarge"
  /** The value could not be written to, or read back from, the spool. */
  | "spoolFailed"
  /** The store was disposed (the server is shutting down). */
  | "closed";

/** A failure of the payload store; the payload/read handler maps it to a wire error. */
export class PayloadError extends Error {
  override readonly name = "PayloadError";

  constructor(
    readonly code: PayloadErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * Bad references are the client's to fix, so they answer `invalidParams`
 * with `data.reason` naming which; a store that is closing answers
 * `shuttingDown`; a spool that failed is `internal`.
 */
export function payloadWireError(error: PayloadError): AppServerError {
  switch (error.code) {
    case "unknownPayload":
    case "offsetOutOfRange":
    case "invalidOffset":
      return rpcError("invalidParams", error.message, { reason: error.code, ...error.details });
    case "closed":
      return rpcError("shuttingDown", error.message);
    case "tooLarge":
    case "spoolFailed":
      return rpcError("internal", error.message);
  }
}
