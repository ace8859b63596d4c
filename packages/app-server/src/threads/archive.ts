import { activePathOf, archivedPathOf, checkMovable, moveTranscript } from "@knightcode/store/session/archive";
import type { Connection } from "../rpc/connection.js";
import { rpcError, turnIdData } from "../rpc/errors.js";
import type { ThreadManager } from "./manager.js";
import { sessionError } from "../rpc/session-error.js";

export function notFound(threadId: string): Error {
  return rpcError("threadNotFound", `no saved thread ${threadId}`);
}

/** Unloads an idle thread so its transcript can move; a running one refuses with turnInProgress. */
async function unloadForArchive(threads: ThreadManager, threadId: string): Promise<void> {
  const thread = threads.get(threadId);
  if (thread) {
    await thread.turns.finishReported();
    if (thread.isRunning)
      throw rpcError("turnInProgress", `thread ${threadId} is running; interrupt it before it can be archived`, turnIdData(thread.turns.runningTurnId));
    await threads.close(thread, "unload");
  }
  await threads.unloaded(threadId);
}

/**
 * Moves a transcript between the active and archived folders and tells
 * every connection; an archived worktree thread's worktree is then
 * snapshotted and deleted when nothing else runs there.
 */
export async function moveThread(threads: ThreadManager, threadId: string, archive: boolean, connection: Connection): Promise<Record<string, never>> {
  const found = threads.find(threadId);
  if (!found) throw notFound(threadId);
  if (found.archived === archive) return {};
  const to = archive ? archivedPathOf(found.path) : activePathOf(found.path);
  try {
    checkMovable(found.path, to);
    if (archive) await unloadForArchive(threads, threadId);
    await moveTranscript(found.path, to, threadId);
  } catch (error) {
    throw sessionError(error, threadId);
  }
  threads.moved(threadId, to);
  threads.broadcast(archive ? "thread/archived" : "thread/unarchived", { threadId });
  if (archive) await threads.worktrees.retire(threadId, to, connection);
  return {};
}
