import type { Handler } from "../../rpc/handler.js";

/** turn/interrupt: answers at once; the turn completes interrupted with what it had streamed. */
export const handler: Handler<"turn/interrupt"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return { interrupted: threads.require(params.threadId).turns.interrupt(params.turnId) };
};
