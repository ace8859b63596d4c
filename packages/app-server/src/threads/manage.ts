import type { ThreadHandler } from "./thread-handler.js";
import { rpcError } from "../rpc/errors.js";
import { modelError, threadCreated } from "./start.js";

export const forkThread: ThreadHandler<"thread/fork"> = async (params, ctx, threads) => {
  const thread = await threads.fork(params.threadId);
  thread.subscribe(ctx.connection);
  return threadCreated(thread);
};

export const unsubscribeThread: ThreadHandler<"thread/unsubscribe"> = (params, ctx, threads) => {
  const thread = threads.get(params.threadId);
  return { status: thread?.unsubscribe(ctx.connection) ? "unsubscribed" : "notSubscribed" };
};

export const setThreadName: ThreadHandler<"thread/name/set"> = (params, ctx, threads) => {
  const name = params.name.replace(/[\r\n\u2028\u2029]+/g, " ").trim();
  if (name === "") throw rpcError("invalidParams", "params.name must not be blank");
  threads.require(params.threadId).setName(name);
  return {};
};

export const updateThreadSettings: ThreadHandler<"thread/settings/update"> = async (params, ctx, threads) => {
  const thread = threads.require(params.threadId);
  if (thread.isRunning && (params.model || params.thinkingLevel)) {
    throw rpcError("turnInProgress", "the thread is running a turn; change its model after it ends");
  }
  if (params.model) {
    const model = await threads.registry.find(params.model);
    if (!model) throw rpcError("invalidParams", `params.model: unknown model ${params.model.provider}/${params.model.id}`);
    if (params.thinkingLevel) {
      const levels = await threads.registry.thinkingLevels(model);
      if (!levels.includes(params.thinkingLevel)) throw rpcError("invalidParams", `params.thinkingLevel: ${model.id} offers ${levels.join(", ")}`);
    }
  }
  try {
    await thread.runtime.choose({ model: params.model, thinkingLevel: params.thinkingLevel });
  } catch (error) {
    throw modelError(error);
  }
  if (params.approvalMode) thread.setApprovalMode(params.approvalMode);
  return { thread: thread.thread() };
};
