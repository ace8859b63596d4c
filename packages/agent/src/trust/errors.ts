export type TrustErrorCode =
  /** The folder to decide on does not exist or is not a directory. */
  | "notADirectory"
  /** trust.json cannot be read as a trust store; it is never overwritten. */
  | "corrupt"
  /** Reading, locking or writing trust.json failed. */
  | "io";

/** The one error type of the trust store; the server maps `code` to a protocol error. */
export class TrustError extends Error {
  override readonly name = "TrustError";

  constructor(
    readonly code: TrustErrorCode,
    message: string,
    readonly data: { path?: string } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
