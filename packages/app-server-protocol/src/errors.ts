/**
 * Every error code the server can answer, as the wire carries it: the spec's
 * camelCase name as a string. Kept free of TypeBox so the running server can
 * import it without loading the schema builder.
 */
export const ERROR_CODES = [
  "notInitialized",
  "methodNotFound",
  "invalidParams",
  "shuttingDown",
  "internal",
  "threadNotFound",
  "turnInProgress",
  "turnMismatch",
  "invalidCursor",
  "configConflict",
  "threadNotArchived",
  "threadLockedElsewhere",
  "archiveConflict",
  "notGitRepo",
  "gitConflict",
  "toolMissing",
  "authRequired",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes every method may answer besides its own. */
export const COMMON_ERROR_CODES = ["notInitialized", "invalidParams", "shuttingDown", "internal"] as const;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/** An error the server answered: `code`, `message` and `data` exactly as sent. */
export class AppServerError extends Error {
  override readonly name = "AppServerError";
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(error: { code: ErrorCode; message: string; data?: Record<string, unknown> }) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }

  /** The error as the wire carries it. */
  toWire(): { code: ErrorCode; message: string; data?: Record<string, unknown> } {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}
