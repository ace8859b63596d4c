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
  const children = await subagentsOf(threads, threadId, found.archived);
  if (archive) {
    const working = children.find((child) => threads.get(child)?.isRunning);
    if (working !== undefined)
      throw rpcError("turnInProgress", `thread ${threadId}'s sub-agent ${working} is running; interrupt it before the thread can be archived`);
  }
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
  // Its sub-agents follow it, each as its own archive or unarchive; one that cannot move stays where it is.
  for (const child of children) {
    await threads
      .fenced(child, () => moveThread(threads, child, archive, connection))
      .catch((error: unknown) => threads.context.log.warn(`moving sub-agent ${child} with thread ${threadId}`, error));
  }
  return {};
}

/** The sub-agents of `threadId` in the active (or archived) folders. */
async function subagentsOf(threads: ThreadManager, threadId: string, archived: boolean): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await threads.catalog.listing.list({
      folders: threads.catalog.locator.sessionRoots(),
      archived,
      parentThreadId: threadId,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    ids.push(...page.threads.map((thread) => thread.id));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return ids;
}
