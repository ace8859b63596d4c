import type { ThreadHandler } from "../threads/thread-handler.js";
import { resolveImages } from "./images.js";

export const startTurn: ThreadHandler<"turn/start"> = async (params, ctx, threads) => {
  const thread = threads.require(params.threadId);
  const images = await resolveImages(params.images);
  thread.lastInitiator = ctx.connection;
  const outcome = await thread.turns.start(
    {
      text: params.text,
      images,
      ...(params.requestId ? { requestId: params.requestId } : {}),
      ...(params.clientMessageId ? { clientMessageId: params.clientMessageId } : {}),
    },
    ctx.connection,
  );
  return { status: outcome.status, threadId: thread.id, ...(params.requestId ? { requestId: params.requestId } : {}) };
};
