import type { ThreadHandler } from "../threads/thread-handler.js";
import { rpcError } from "../rpc/errors.js";
import { modelError } from "../threads/start.js";
import { resolveImages } from "./images.js";

export const startTurn: ThreadHandler<"turn/start"> = async (params, ctx, threads) => {
  const thread = threads.require(params.threadId);
  const answer = (status: "started" | "handled" | "cancelled") => ({
    status,
    threadId: thread.id,
    ...(params.requestId ? { requestId: params.requestId } : {}),
  });
  if (thread.isRunning) throw rpcError("turnInProgress", `thread ${thread.id} is running turn ${thread.runningTurnId ?? "(starting)"}`);
  const images = await resolveImages(params.images);
  try {
    await thread.runtime.session.prepare();
  } catch (error) {
    throw modelError(error);
  }
  return thread.admit(async (admission) => {
    thread.subscribe(ctx.connection);
    thread.lastInitiator = ctx.connection;
    const input = await thread.runtime.processInput(params.text, images, "user", admission.signal);
    if (admission.cancelled) return answer("cancelled");
    if (input.action === "handled") return answer("handled");
    try {
      await thread.beginTurn(
        { text: input.text, images: input.images },
        { ...(params.requestId ? { requestId: params.requestId } : {}), ...(params.clientMessageId ? { clientMessageId: params.clientMessageId } : {}) },
      );
    } catch (error) {
      throw modelError(error);
    }
    return answer("started");
  });
};
