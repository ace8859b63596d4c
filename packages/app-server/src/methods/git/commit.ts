import { commitPlan, planCommit, planDiff, type CommitPlan } from "@knightcode/repo/git/ops/commit";
import { ModelError } from "@knightcode/agent/models/errors";
import { writeCommitMessage } from "@knightcode/agent/models/commit-message";
import type { GitContext } from "@knightcode/repo/git/ops/context";
import type { ModelRegistry } from "@knightcode/agent/models/registry";
import type { LoadedThread } from "../../threads/loaded-thread.js";
import { modelError } from "../../rpc/model-error.js";
import type { Handler } from "../../rpc/handler.js";
import { onThreadCheckout } from "../../git/thread-checkout.js";

/** The thread's model writes the message from the planned change, in a request of its own that no transcript or usage sees. */
async function messageFromModel(registry: ModelRegistry, thread: LoadedThread, git: GitContext, plan: CommitPlan): Promise<string> {
  let model;
  let apiKey: string;
  try {
    model = await thread.runtime.session.resolveModel();
    if (!model) throw new ModelError("noModel", "no model is usable to write the commit message: choose a model for the thread, or pass a message");
    apiKey = await registry.requireCredentials(model);
  } catch (error) {
    throw modelError(error);
  }
  const diff = await planDiff(git, plan);
  return writeCommitMessage({ registry, model, apiKey, diff, ...(git.signal ? { signal: git.signal } : {}) });
}

/**
 * git/commit: plans the commit (staging everything in a copy of the
 * index when includeUnstaged), has the model write a missing message
 * without holding the checkout, then commits while it holds it, refusing
 * with concurrentChange if HEAD or the change moved meanwhile.
 */
export const handler: Handler<"git/commit"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return onThreadCheckout(threads, params.threadId, ctx.signal, async ({ git, thread, exclusive }) => {
    const given = params.message !== undefined && params.message.trim() !== "" ? params.message : undefined;
    const plan = await exclusive(() => planCommit(git, params.includeUnstaged ?? true));
    const message = given ?? (await messageFromModel(await ctx.services.registry(), thread, git, plan));
    const committed = await exclusive(() => commitPlan(git, plan, message));
    return { ...committed, generated: given === undefined };
  });
};
