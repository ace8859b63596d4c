import { TrustError } from "@knightcode/agent";
import { rpcError } from "../rpc/errors.js";
import { requireDirectory } from "../threads/start.js";
import type { ThreadHandler } from "../threads/thread-handler.js";

function trustError(error: unknown): Error {
  if (error instanceof TrustError) {
    if (error.code === "notADirectory") return rpcError("invalidParams", error.message);
    return rpcError("internal", error.message);
  }
  return error as Error;
}

export const readProjectTrust: ThreadHandler<"project/trust/read"> = (params, _ctx, threads) => {
  const cwd = requireDirectory(params.cwd);
  try {
    const state = threads.environment.trust.read(cwd);
    return { trusted: state.trusted, needsTrust: state.needsTrust };
  } catch (error) {
    throw trustError(error);
  }
};

export const setProjectTrust: ThreadHandler<"project/trust/set"> = async (params, _ctx, threads) => {
  const cwd = requireDirectory(params.cwd);
  try {
    await threads.environment.trust.set(cwd, params.trusted);
  } catch (error) {
    throw trustError(error);
  }
  return {};
};
