import { refuseBuiltin } from "../../commands/builtins.js";
import type { Handler } from "../../rpc/handler.js";
import { resolveImages } from "../../turns/images.js";

/** turn/steer: input for the running turn it names, through the input hooks first. */
export const handler: Handler<"turn/steer"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const thread = threads.require(params.threadId);
  refuseBuiltin(params.text, "turn/steer");
  const images = await resolveImages(params.images);
  return thread.turns.steer(params.expectedTurnId, params.text, images);
};
