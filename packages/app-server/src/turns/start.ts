import type { ThreadHandler } from "../threads/thread-handler.js";
import { resolveImages } from "./images.js";

/** turn/start: answers once the turn started (or the input was handled or cancelled), never waiting for its end. */
export const startTurn: ThreadHandler<"turn/start"> = async (params, ctx, threads) => {
  const thread = threads.require(params.threadId);
  const images = await resolveImages(params.images);
  const outcome = await thread.startTurn(
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
