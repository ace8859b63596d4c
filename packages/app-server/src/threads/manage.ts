import type { Handler } from "../rpc/handler.js";
import { rpcError } from "../rpc/errors.js";
import { modelError, threadCreated } from "./start.js";

export const forkThread: Handler<"thread/fork"> = async (params, ctx) => {
  const thread = await ctx.server.threads.fork(params.threadId);
  thread.subscribe(ctx.connection);
  return threadCreated(thread);
};

export const unsubscribeThread: Handler<"thread/unsubscribe"> = (params, ctx) => {
  const thread = ctx.server.threads.get(params.threadId);
  return { status: thread?.unsubscribe(ctx.connection) ? "unsubscribed" : "notSubscribed" };
};

export const setThreadName: Handler<"thread/name/set"> = (params, ctx) => {
  const name = params.name.replace(/[\r\n\u2028\u2029]+/g, " ").trim();
  if (name === "") throw rpcError("invalidParams", "params.name must not be blank");
  ctx.server.threads.require(params.threadId).setName(name);
  return {};
};

export const updateThreadSettings: Handler<"thread/settings/update"> = async (params, ctx) => {
  const thread = ctx.server.threads.require(params.threadId);
  if (thread.isRunning && (params.model || params.thinkingLevel)) {
    throw rpcError("turnInProgress", "the thread is running a turn; change its model after it ends");
  }
  if (params.model) {
    const model = await ctx.server.threads.registry.find(params.model);
    if (!model) throw rpcError("invalidParams", `params.model: unknown model ${params.model.provider}/${params.model.id}`);
    if (params.thinkingLevel) {
      const levels = await ctx.server.threads.registry.thinkingLevels(model);
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
