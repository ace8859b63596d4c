import { SessionFileError } from "./errors.js";

/** What stopped a thread from writing its transcript. */
export type FaultReason = "diskFull" | "quota" | "readOnly" | "ioError" | "permission" | "fileTooLarge" | "ownershipLost" | "writeFailed";

interface Wording {
  headline: string;
  remedy: string;
}

const KEPT = "nothing saved before is lost";

const WORDING: Record<FaultReason, Wording> = {
  diskFull: { headline: "the disk holding the sessions folder is full", remedy: `Free some space on it, then resume the thread; ${KEPT}.` },
  quota: { headline: "the disk quota of the sessions folder is used up", remedy: `Free space within the quota, then resume the thread; ${KEPT}.` },
  readOnly: {
    headline: "the file system holding the sessions folder became read-only",
    remedy: `Make it writable again (check the disk, remount it), then resume the thread; ${KEPT}.`,
  },
  ioError: { headline: "the disk holding the sessions folder reported an I/O error", remedy: `Check the disk, then resume the thread; ${KEPT}.` },
  permission: {
    headline: "the session file may no longer be written (permission denied)",
    remedy: `Give this user write access to the session file and its folder again, then resume the thread; ${KEPT}.`,
  },
  fileTooLarge: { headline: "the session file reached the largest size its file system allows", remedy: `Fork the thread to go on; ${KEPT}.` },
  ownershipLost: {
    headline: "another process took this thread over",
    remedy: "This process writes nothing more to it; close it there, then resume it here.",
  },
  writeFailed: { headline: "the session file could not be written", remedy: `Resume the thread once the cause is fixed; ${KEPT}.` },
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

/** Words a user can act on for a failure to write a transcript. */
export function threadFault(error: unknown): ThreadFault {
  if (error instanceof ThreadFault) return error;
  const reason = reasonOf(error);
  const { headline, remedy } = WORDING[reason];
  const detail = error instanceof Error ? error.message : String(error);
  return new ThreadFault(reason, `The thread stopped: ${headline} (${detail}). ${remedy}`, { cause: error });
}
