import { builtinCommandOf, runBuiltinCommand } from "../commands/builtins.js";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { resolveImages } from "./images.js";

/**
 * turn/start: answers once the turn started (or the input was handled or
 * cancelled), never waiting for its end. A built-in command runs here; an
 * extension's, a template or a skill on the way to the turn. The answer
 * names the thread that now runs, a new one when a command replaced it.
 */
export const startTurn: ThreadHandler<"turn/start"> = async (params, ctx, threads) => {
  const thread = threads.require(params.threadId);
  const images = await resolveImages(params.images);
  const builtin = builtinCommandOf(params.text);
  if (builtin) return runBuiltinCommand(builtin, thread, params.requestId ? { requestId: params.requestId } : {}, ctx, threads);
  const outcome = await thread.startTurn(
    {
      text: params.text,
      images,
      ...(params.requestId ? { requestId: params.requestId } : {}),
      ...(params.clientMessageId ? { clientMessageId: params.clientMessageId } : {}),
    },
    ctx.connection,
  );
  const threadId = outcome.status === "handled" && outcome.threadId !== undefined ? outcome.threadId : thread.id;
  return { status: outcome.status, threadId, ...(params.requestId ? { requestId: params.requestId } : {}) };
};
