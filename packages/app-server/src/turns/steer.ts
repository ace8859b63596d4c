import { refuseBuiltin } from "../commands/builtins.js";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { resolveImages } from "./images.js";

/** turn/steer: input for the running turn it names, through the input hooks first. */
export const steerTurn: ThreadHandler<"turn/steer"> = async (params, _ctx, threads) => {
  const thread = threads.require(params.threadId);
  refuseBuiltin(params.text, "turn/steer");
  const images = await resolveImages(params.images);
  return thread.turns.steer(params.expectedTurnId, params.text, images);
};
