import type { ThreadHandler } from "../threads/thread-handler.js";

/** turn/queue/remove: takes a queued input back before it starts. */
export const removeFromQueue: ThreadHandler<"turn/queue/remove"> = (params, _ctx, threads) => ({
  removed: threads.require(params.threadId).turns.queueRemove(params.queueId),
});
