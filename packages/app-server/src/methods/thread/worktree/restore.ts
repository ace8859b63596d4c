import { readThreadPlace } from "@knightcode/repo/worktrees/workspace";
import { restoreWorktree } from "@knightcode/repo/worktrees/snapshot";
import { updateRecord, withRecordLock } from "@knightcode/repo/worktrees/record";
import type { WorkspaceState } from "@knightcode/store/session/format";
import { rpcError } from "../../../rpc/errors.js";
import { sessionError } from "../../../rpc/session-error.js";
import type { Handler } from "../../../rpc/handler.js";
import { withWorktreeErrors } from "../../../workspace/worktree-errors.js";

/**
 * thread/worktree/restore: rebuilds a worktree thread's deleted worktree at
 * its old path from its snapshot, then loads the thread there (a loaded
 * thread already runs at that path). An archived thread is unarchived
 * first; a worktree that is not deleted is invalidParams.
 */
export const handler: Handler<"thread/worktree/restore"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const { threadId } = params;
  await threads.fenced(threadId, async () => {
    const found = threads.find(threadId);
    if (!found) throw rpcError("threadNotFound", `no saved thread ${threadId}`);
    if (found.archived) throw rpcError("invalidParams", `thread ${threadId} is archived; unarchive it before restoring its worktree`, { reason: "archived" });
    const place = threads.get(threadId)?.place ?? (await placeOf(found.path, threadId));
    if (place.mode !== "worktree" || place.path === undefined) throw rpcError("invalidParams", `thread ${threadId} does not run in a worktree`);
    const path = place.path;
    const worktree = threads.worktrees.all().find(({ record }) => record.path === path);
    if (!worktree)
      throw rpcError("gitConflict", `${path} is not a managed worktree any more; fork the chat into a new worktree instead`, {
        reason: "worktreeMissing",
        paths: [path],
      });
    await withWorktreeErrors(() =>
      withRecordLock(worktree.bucketDir, async () => {
        const { record } = threads.worktrees.all().find((one) => one.bucketDir === worktree.bucketDir) ?? worktree;
        if (!record.deleted) throw rpcError("invalidParams", `the worktree ${path} is not deleted`);
        if (record.snapshot === undefined) {
          throw rpcError("gitConflict", `${path} was deleted without a snapshot; fork the chat into a new worktree instead`, {
            reason: "worktreeMissing",
            paths: [path],
          });
        }
        await restoreWorktree({ repoRoot: record.repoRoot, checkoutRoot: record.checkoutRoot, path, snapshot: record.snapshot, env: ctx.context.env });
        await updateRecord(worktree.bucketDir, (current) => {
          current.deleted = false;
          current.lastUsedAt = new Date().toISOString();
          delete current.snapshot;
          delete current.head;
        });
      }),
    );
  });
  const thread = await threads.load(threadId);
  return { thread: thread.thread() };
};

async function placeOf(path: string, threadId: string): Promise<WorkspaceState> {
  try {
    return (await readThreadPlace(path)).place;
  } catch (error) {
    throw sessionError(error, threadId);
  }
}
