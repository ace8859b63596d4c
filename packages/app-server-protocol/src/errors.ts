import type { ErrorData } from "./error-data.js";

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

/**
 * An error the server answered: `code`, `message` and `data` exactly as
 * sent. `data` is typed by the code (`ErrorDataByCode`): `error.is(code)`
 * narrows an error of any code to that one, and its `data` with it.
 */
export class AppServerError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = "AppServerError";
  readonly code: C;
  readonly data: ErrorData<C> | undefined;

  constructor(error: { code: C; message: string; data?: Record<string, unknown> }) {
    super(error.message);
    this.code = error.code;
    // The wire's data is the server's word, as every typed result is.
    this.data = error.data as ErrorData<C> | undefined;
  }

  /** Whether this error has code `code`; its `data` then has that code's fields. */
  is<K extends ErrorCode>(code: K): this is AppServerError<K> {
    return (this.code as ErrorCode) === code;
  }

  /** The error as the wire carries it. */
  toWire(): { code: C; message: string; data?: Record<string, unknown> } {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}
