import { ArchiveConflictError } from "@knightcode/store/session/archive";
import { SessionFileError } from "@knightcode/store/session/errors";
import { creationFailure } from "@knightcode/store/session/fault";
import { rpcError } from "./errors.js";

/** Maps a session file failure to the protocol's error. */
export function sessionError(error: unknown, threadId: string): Error {
  if (error instanceof ArchiveConflictError) return rpcError("archiveConflict", error.message, { ...error.recovery });
  if (!(error instanceof SessionFileError)) return error as Error;
  switch (error.code) {
    case "lockedElsewhere":
      return rpcError("threadLockedElsewhere", `thread ${threadId} is open in another process${error.holder ? ` (pid ${error.holder.pid})` : ""}`, {
        ...(error.holder ? { pid: error.holder.pid, host: error.holder.host } : {}),
      });
    case "hardLinked":
      return rpcError("archiveConflict", `the session file of thread ${threadId} has other hard links; refusing to own it`, { paths: [error.path] });
    case "notFound":
      return rpcError("threadNotFound", `no saved thread ${threadId}`);
    case "notASessionFile":
    case "writeFailed":
      return rpcError("internal", error.message);
    default:
      return error;
  }
}

/** A disk's failure to create a transcript, in words a user can act on; anything else as it was. */
export function creationError(what: string, error: unknown): unknown {
  const words = creationFailure(what, error);
  return words === undefined ? error : rpcError("internal", words);
}
