import type { ThreadHandler } from "../threads/thread-handler.js";
import { resolveImages } from "./images.js";

export const steerTurn: ThreadHandler<"turn/steer"> = async (params, _ctx, threads) => {
  const thread = threads.require(params.threadId);
  const images = await resolveImages(params.images);
  return thread.turns.steer(params.expectedTurnId, params.text, images);
};

export const addToQueue: ThreadHandler<"turn/queue/add"> = async (params, ctx, threads) => {
  const thread = threads.require(params.threadId);
  const images = await resolveImages(params.images);
  thread.lastInitiator = ctx.connection;
  const queueId = thread.turns.queueAdd({ text: params.text, images, ...(params.clientMessageId ? { clientMessageId: params.clientMessageId } : {}) }, ctx.connection);
  return { queueId };
};

export const removeFromQueue: ThreadHandler<"turn/queue/remove"> = (params, _ctx, threads) => {
  return { removed: threads.require(params.threadId).turns.queueRemove(params.queueId) };
};

export const interruptTurn: ThreadHandler<"turn/interrupt"> = (params, _ctx, threads) => {
  return { interrupted: threads.require(params.threadId).turns.interrupt(params.turnId) };
};

export const startCompaction: ThreadHandler<"thread/compact/start"> = async (params, ctx, threads) => {
  const thread = threads.require(params.threadId);
  thread.lastInitiator = ctx.connection;
  return { status: "started", turnId: await thread.turns.compact(ctx.connection) };
};
