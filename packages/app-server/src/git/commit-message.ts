import { planDiff, type CommitPlan } from "@knightcode/repo/git/ops/commit";
import { ModelError } from "@knightcode/agent/models/errors";
import { writeCommitMessage } from "@knightcode/agent/models/commit-message";
import type { GitContext } from "@knightcode/repo/git/ops/context";
import type { ModelRegistry } from "@knightcode/agent/models/registry";
import type { LoadedThread } from "../threads/loaded-thread.js";
import { modelError } from "../rpc/model-error.js";

/**
 * The thread's model writes the message from the planned change, in a
 * request of its own that no transcript or usage sees: git/commit without
 * a message, and git/commit/message, which only answers it.
 */
export async function messageFromModel(registry: ModelRegistry, thread: LoadedThread, git: GitContext, plan: CommitPlan): Promise<string> {
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
