export type ListingErrorCode =
  /** The cursor is malformed, expired, evicted, or was made for other filters. */
  | "invalidCursor"
  /** A request field is out of range (a limit outside 1..200). */
  | "invalidParams"
  /** A sessions folder could not be read. */
  | "io";

/** Why a cursor was refused; for logs and tests, never for clients to branch on. */
export type CursorProblem = "malformed" | "unknown" | "filterMismatch";

/** Every failure of a listing the server maps to a protocol error. */
export class ListingError extends Error {
  readonly path: string | undefined;
  readonly problem: CursorProblem | undefined;

  constructor(
    readonly code: ListingErrorCode,
    message: string,
    details: { path?: string; problem?: CursorProblem; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "ListingError";
    this.path = details.path;
    this.problem = details.problem;
  }
}
