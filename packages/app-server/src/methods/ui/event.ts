import { rpcError } from "../../rpc/errors.js";
import type { Handler } from "../../rpc/handler.js";
import { misfit } from "../../ui/views.js";

/**
 * ui/event: a control of a widget's view was pressed or changed. The value
 * is checked against the control as the client was last sent it; a widget
 * or control that is gone reaches nobody. The answer waits for the
 * handlers, each at most as long as an extension event handler may run.
 */
export const handler: Handler<"ui/event"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  const thread = threads.require(params.threadId);
  const control = thread.ui.control(params.widgetKey, params.id);
  if (!control) return {};
  const why = misfit(control, params.value);
  if (why) throw rpcError("invalidParams", `params.value: ${params.id} is a ${control.type}, and ${why}`);
  const event = { widgetKey: params.widgetKey, id: params.id, ...(params.value === undefined ? {} : { value: params.value }) };
  await thread.ui.dispatchViewEvent(event, thread.runtime.settings.effective.extensionHookTimeoutMs);
  return {};
};
