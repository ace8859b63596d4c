import { requireDirectory } from "../threads/directory.js";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { trustError } from "./errors.js";

/** project/trust/set: records a decision; later loads use it, loaded threads are not rebuilt. */
export const setProjectTrust: ThreadHandler<"project/trust/set"> = async (params, _ctx, threads) => {
  const cwd = requireDirectory(params.cwd);
  try {
    await threads.environment.trust.set(cwd, params.trusted);
  } catch (error) {
    throw trustError(error);
  }
  return {};
};
