import { builtinCommandOf, planTask, runBuiltinCommand } from "../../commands/builtins.js";
import { rpcError, turnIdData } from "../../rpc/errors.js";
import type { Handler } from "../../rpc/handler.js";
import { detachedFinding } from "../../threads/review-child.js";
import { quoteComments } from "../../workspace/diff-comments.js";
import { resolveImages } from "../../turns/images.js";

/**
 * turn/start: answers once the turn started (or the input was handled or
 * cancelled), never waiting for its end. A built-in command runs here; an
 * extension's, a template or a skill on the way to the turn. The answer
 * names the thread that now runs, a new one when a command replaced it.
 */
export const handler: Handler<"turn/start"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const thread = threads.require(params.threadId);
  const images = await resolveImages(params.images);
  const comments = await quoteComments(params.comments, thread, ctx.context.env, (hunkId) => detachedFinding(threads, thread.id, hunkId));
  const builtin = builtinCommandOf(params.text);
  const task = builtin && planTask(builtin);
  if (builtin && task === undefined) return runBuiltinCommand(builtin, thread, params.requestId ? { requestId: params.requestId } : {}, ctx, threads);
  if (task !== undefined) {
    // `/plan <task>`: plan mode first, then the task as the turn's input; nothing changes when a turn already runs.
    await thread.turns.finishReported();
    if (thread.isRunning)
      throw rpcError("turnInProgress", "a turn is running; /plan with a task starts a turn of its own", turnIdData(thread.turns.runningTurnId));
    thread.setPlanMode(true);
  }
  const outcome = await thread.startTurn(
    {
      text: task ?? params.text,
      images,
      comments,
      ...(params.requestId ? { requestId: params.requestId } : {}),
      ...(params.clientMessageId ? { clientMessageId: params.clientMessageId } : {}),
    },
    ctx.connection,
  );
  const threadId = outcome.status === "handled" && outcome.threadId !== undefined ? outcome.threadId : thread.id;
  return { status: outcome.status, threadId, ...(params.requestId ? { requestId: params.requestId } : {}) };
};
