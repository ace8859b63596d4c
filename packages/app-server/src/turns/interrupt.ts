import type { ThreadHandler } from "../threads/thread-handler.js";

/** turn/interrupt: answers at once; the turn completes interrupted with what it had streamed. */
export const interruptTurn: ThreadHandler<"turn/interrupt"> = (params, _ctx, threads) => ({
  interrupted: threads.require(params.threadId).turns.interrupt(params.turnId),
});
