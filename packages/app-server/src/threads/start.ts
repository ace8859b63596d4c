import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { modelError } from "./model-error.js";
import type { ThreadHandler } from "./thread-handler.js";
import { rpcError } from "../rpc/errors.js";
import type { LoadedThread } from "./loaded-thread.js";

/** The cwd of a new thread: an existing directory, or invalidParams. */
export function requireDirectory(cwd: string, field = "params.cwd"): string {
  if (!isAbsolute(cwd)) throw rpcError("invalidParams", `${field} must be an absolute path`);
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) throw rpcError("invalidParams", `${field} is not an existing directory: ${cwd}`);
  return resolve(cwd);
}


export { modelError };

export function threadCreated(thread: LoadedThread) {
  return { thread: thread.thread(), warnings: thread.loadWarnings, ui: thread.ui.snapshot() };
}

export const startThread: ThreadHandler<"thread/start"> = async (params, ctx, threads) => {
  const cwd = requireDirectory(params.cwd);
  // A bad model or level is refused before anything is written.
  const model = params.model ? await threads.registry.find(params.model) : params.thinkingLevel ? await threads.defaultModel(cwd) : undefined;
  if (params.model && !model) throw rpcError("invalidParams", `params.model: unknown model ${params.model.provider}/${params.model.id}`);
  if (model && params.thinkingLevel) {
    const levels = await threads.registry.thinkingLevels(model);
    if (!levels.includes(params.thinkingLevel)) throw rpcError("invalidParams", `params.thinkingLevel: ${model.id} offers ${levels.join(", ")}`);
  }
  const thread = await threads.create(cwd, async (created) => {
    try {
      await created.runtime.choose({ model: params.model, thinkingLevel: params.thinkingLevel });
    } catch (error) {
      throw modelError(error);
    }
    created.setApprovalMode(params.approvalMode ?? created.approvalMode);
    created.subscribe(ctx.connection);
  });
  return threadCreated(thread);
};
