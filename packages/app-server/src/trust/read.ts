import { requireDirectory } from "../threads/directory.js";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { trustError } from "./errors.js";

/** project/trust/read: the server-owned decision for a project folder. */
export const readProjectTrust: ThreadHandler<"project/trust/read"> = (params, _ctx, threads) => {
  const cwd = requireDirectory(params.cwd);
  try {
    const state = threads.environment.trust.read(cwd);
    return { trusted: state.trusted, needsTrust: state.needsTrust };
  } catch (error) {
    throw trustError(error);
  }
};
