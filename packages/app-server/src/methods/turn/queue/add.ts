import { refuseBuiltin } from "../../../commands/builtins.js";
import type { Handler } from "../../../rpc/handler.js";
import { detachedFinding } from "../../../threads/review-child.js";
import { quoteComments } from "../../../workspace/diff-comments.js";
import { resolveImages } from "../../../turns/images.js";

/** turn/queue/add: a turn of its own once the thread is idle; at once on an idle thread. */
export const handler: Handler<"turn/queue/add"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const thread = threads.require(params.threadId);
  refuseBuiltin(params.text, "turn/queue/add");
  const images = await resolveImages(params.images);
  const comments = await quoteComments(params.comments, thread, ctx.context.env, (hunkId) => detachedFinding(threads, thread.id, hunkId));
  thread.lastInitiator = ctx.connection;
  const input = { text: params.text, images, comments, ...(params.clientMessageId ? { clientMessageId: params.clientMessageId } : {}) };
  return { queueId: thread.turns.queueAdd(input, () => thread.subscribe(ctx.connection)) };
};
