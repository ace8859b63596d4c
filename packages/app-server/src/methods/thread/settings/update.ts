import { rpcError } from "../../../rpc/errors.js";
import { modelError } from "../../../rpc/model-error.js";
import type { Handler } from "../../../rpc/handler.js";

/**
 * thread/settings/update. A model or thinking-level change is an exclusive
 * change of the turn owner: refused with turnInProgress while a turn runs,
 * and a start that arrives meanwhile waits for it, so it lands before a turn
 * and never inside one. An approval mode or plan mode alone applies at
 * once, mid-turn too: the gate reads it for each call.
 */
export const handler: Handler<"thread/settings/update"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const registry = await ctx.services.registry();
  const thread = threads.require(params.threadId);
  if (params.model || params.thinkingLevel) {
    await thread.turns.exclusive(async () => {
      if (params.model) {
        const model = await registry.find(params.model);
        if (!model) throw rpcError("invalidParams", `params.model: unknown model ${params.model.provider}/${params.model.id}`, { reason: "modelNotFound" });
        if (params.thinkingLevel) {
          const levels = await registry.thinkingLevels(model);
          if (!levels.includes(params.thinkingLevel)) throw rpcError("invalidParams", `params.thinkingLevel: ${model.id} offers ${levels.join(", ")}`);
        }
      }
      try {
        await thread.runtime.choose({ model: params.model, thinkingLevel: params.thinkingLevel });
      } catch (error) {
        throw modelError(error);
      }
    });
  }
  if (params.approvalMode) thread.setApprovalMode(params.approvalMode);
  if (params.planMode !== undefined) thread.setPlanMode(params.planMode);
  return { thread: thread.thread() };
};
