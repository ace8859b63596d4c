import type { LockHolder } from "@knightcode/system/fs/file-lock";

export type SessionFileErrorCode =
  /** The transcript (or an entry named in it) does not exist. */
  | "notFound"
  /** Line 1 is not a usable session header: not JSON, not `type: "session"`, or missing fields. */
  | "notASessionFile"
  /** Another live process owns the transcript; `holder` says which when the lock could be read. */
  | "lockedElsewhere"
  /** The transcript has more than one hard link, so two names could be owned at once. */
  | "hardLinked"
  /** The lock or the file itself was taken away or changed behind this owner; nothing more is written. */
  | "ownershipLost"
  /** A write did not complete; the file was rolled back to its last whole line. */
  | "writeFailed"
  /** A new transcript's name is already taken. */
  | "alreadyExists"
  /** The SessionFile was closed. */
  | "closed";

export interface SessionFileErrorDetails {
  path: string;
  holder?: LockHolder;
  entryId?: string;
  cause?: unknown;
}

/** Every failure of the session layer the server maps to a protocol error. */
export class SessionFileError extends Error {
  readonly path: string;
  readonly holder: LockHolder | undefined;
  readonly entryId: string | undefined;

  constructor(
    readonly code: SessionFileErrorCode,
    message: string,
    details: SessionFileErrorDetails,
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "SessionFileError";
    this.path = details.path;
    this.holder = details.holder;
    this.entryId = details.entryId;
  }
}

export function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
