import type { Warning } from "@knightcode/app-server-protocol";
import { rpcError } from "../../rpc/errors.js";
import { startPlace } from "../../workspace/worktree-start.js";
import { defaultModel } from "../../models/default-model.js";
import { requireDirectory } from "../../threads/directory.js";
import type { LoadedThread } from "../../threads/loaded-thread.js";
import { modelError } from "../../rpc/model-error.js";
import { threadCreated } from "../../threads/created.js";
import type { Handler } from "../../rpc/handler.js";

/**
 * thread/start: a bad model, level or workspace is refused before anything
 * is written; the session file (and the worktree asked for) exists from
 * the answer on. A start that fails after the worktree was made removes it.
 */
export const handler: Handler<"thread/start"> = async (params, ctx) => {
  const [threads, environment] = await Promise.all([ctx.services.threads(), ctx.services.environment()]);
  const { registry } = environment;
  const cwd = requireDirectory(params.cwd);
  const model = params.model ? await registry.find(params.model) : params.thinkingLevel ? await defaultModel(environment, cwd) : undefined;
  if (params.model && !model)
    throw rpcError("invalidParams", `params.model: unknown model ${params.model.provider}/${params.model.id}`, { reason: "modelNotFound" });
  if (model && params.thinkingLevel) {
    const levels = await registry.thinkingLevels(model);
    if (!levels.includes(params.thinkingLevel)) throw rpcError("invalidParams", `params.thinkingLevel: ${model.id} offers ${levels.join(", ")}`);
  }
  const place = await startPlace(params, cwd, threads);
  let thread: LoadedThread;
  try {
    thread = await threads.create(
      place.projectCwd,
      async (created) => {
        try {
          await created.runtime.choose({ model: params.model, thinkingLevel: params.thinkingLevel });
        } catch (error) {
          throw modelError(error);
        }
        created.setApprovalMode(params.approvalMode ?? created.approvalMode);
        created.subscribe(ctx.connection);
      },
      { ...(place.workspace ? { workspace: place.workspace } : {}), sandboxed: params.approvalMode !== "fullAccess" },
    );
  } catch (error) {
    await place.abandon().catch((cleanup: unknown) => ctx.log.error("removing the worktree of a start that failed", cleanup));
    throw error;
  }
  place.started(thread, ctx.connection);
  const created = threadCreated(thread);
  return { ...created, warnings: [...created.warnings, ...place.warnings, ...(created.thread.model === null ? [NO_USABLE_MODEL] : [])] };
};

/** Said at the start rather than at the first turn/start, which would answer invalidParams (noModel). */
const NO_USABLE_MODEL: Warning = {
  source: "models",
  message:
    "No model is usable yet: no provider has a key. Add one (an environment variable, account/login/start, or a provider with an apiKey in models.json) before starting a turn.",
};
