import { SessionFileError } from "./errors.js";

/** What stopped a thread from writing its transcript. */
export type FaultReason = "diskFull" | "quota" | "readOnly" | "ioError" | "permission" | "fileTooLarge" | "ownershipLost" | "writeFailed";

interface Wording {
  headline: string;
  /** What the user does about it, before "then resume the thread" or "then try again". */
  fix: string;
}

const WORDING: Record<Exclude<FaultReason, "ownershipLost">, Wording> = {
  diskFull: { headline: "the disk holding the sessions folder is full", fix: "Free some space on it" },
  quota: { headline: "the disk quota of the sessions folder is used up", fix: "Free space within the quota" },
  readOnly: { headline: "the file system holding the sessions folder became read-only", fix: "Make it writable again (check the disk, remount it)" },
  ioError: { headline: "the disk holding the sessions folder reported an I/O error", fix: "Check the disk" },
  permission: {
    headline: "the session file may no longer be written (permission denied)",
    fix: "Give this user write access to the sessions folder and its files again",
  },
  fileTooLarge: { headline: "the session file reached the largest size its file system allows", fix: "Fork the thread to go on" },
  writeFailed: { headline: "the session file could not be written", fix: "Fix the cause" },
};

const TAKEN_OVER = {
  headline: "another process took this thread over",
  remedy: "This process writes nothing more to it; close it there, then resume it here.",
};

const BY_ERRNO: Record<string, FaultReason> = {
  ENOSPC: "diskFull",
  EDQUOT: "quota",
  EROFS: "readOnly",
  EIO: "ioError",
  EACCES: "permission",
  EPERM: "permission",
  EFBIG: "fileTooLarge",
};

/**
 * Why a thread stopped, in words its user can act on: the thread's
 * systemError and the failed turn's error carry this same message.
 */
export class ThreadFault extends Error {
  override readonly name = "ThreadFault";

  constructor(
    readonly reason: FaultReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /**
   * Whether what the thread could not write may be written later, once the
   * cause is gone. Never after another process took the file: it may have
   * written since.
   */
  get resumable(): boolean {
    return this.reason !== "ownershipLost";
  }
}

/** The first errno code on an error or its chain of causes. */
function errnoOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}

function reasonOf(error: unknown): FaultReason {
  if (error instanceof SessionFileError && error.code === "ownershipLost") return "ownershipLost";
  const errno = errnoOf(error);
  return (errno && BY_ERRNO[errno]) || "writeFailed";
}

function detailOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Words a user can act on for a failure to write a transcript. */
export function threadFault(error: unknown): ThreadFault {
  if (error instanceof ThreadFault) return error;
  const reason = reasonOf(error);
  const detail = detailOf(error);
  if (reason === "ownershipLost")
    return new ThreadFault(reason, `The thread stopped: ${TAKEN_OVER.headline} (${detail}). ${TAKEN_OVER.remedy}`, { cause: error });
  const { headline, fix } = WORDING[reason];
  const then = reason === "fileTooLarge" ? "" : ", then resume the thread";
  return new ThreadFault(reason, `The thread stopped: ${headline} (${detail}). ${fix}${then}; nothing saved before is lost.`, { cause: error });
}

/**
 * Words a user can act on for a transcript that could not be created (a new
 * thread, a fork); undefined when the error is not a disk's failure.
 */
export function creationFailure(what: string, error: unknown): string | undefined {
  const reason = reasonOf(error);
  if (reason === "ownershipLost" || (reason === "writeFailed" && !(error instanceof SessionFileError))) return undefined;
  const { headline, fix } = WORDING[reason];
  return `Could not create ${what}: ${headline} (${detailOf(error)}). ${fix}, then try again.`;
}
