import { deleteTranscript } from "@knightcode/store/session/archive";
import { readThreadPlace } from "@knightcode/repo/worktrees/workspace";
import { runGit } from "@knightcode/repo/git/run";
import { turnRef } from "@knightcode/repo/git/diff/snapshot";
import { rpcError, turnIdData } from "../../rpc/errors.js";
import { notFound } from "../../threads/archive.js";
import { sessionError } from "../../rpc/session-error.js";
import type { Handler } from "../../rpc/handler.js";

/**
 * Deletes an archived transcript for good. Inside the fence no load of the
 * thread can start; the archive and busy checks run again there, and the
 * file is locked and verified (its own header, one name) before it goes.
 */
export const handler: Handler<"thread/delete"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return threads.fenced(params.threadId, async () => {
    const { threadId } = params;
    const found = threads.find(threadId);
    if (!found) throw notFound(threadId);
    if (!found.archived) throw rpcError("threadNotArchived", `thread ${threadId} is not archived; archive it before deleting it`);
    await threads.get(threadId)?.turns.finishReported();
    const running = threads.get(threadId);
    if (running?.isRunning) throw rpcError("turnInProgress", `thread ${threadId} is running`, turnIdData(running.turns.runningTurnId));
    const place = await readThreadPlace(found.path).then(
      ({ place }) => place,
      () => undefined,
    );
    try {
      await deleteTranscript(found.path, threadId);
    } catch (error) {
      throw sessionError(error, threadId);
    }
    // What kept its turns' snapshots alive (one chain under one ref) goes with it; a folder that is gone or outside git has none.
    if (place) {
      await runGit(["update-ref", "-d", turnRef(threadId)], { cwd: place.cwd, env: ctx.context.env, readOnly: false }).catch(() => undefined);
    }
    threads.moved(threadId, undefined);
    threads.broadcast("thread/deleted", { threadId });
    return {};
  });
};
