import { ModelError } from "@knightcode/agent/models/errors";
import { rpcError } from "./errors.js";

/** Maps a model problem to the protocol: a bad choice is invalidParams, a missing credential authRequired. */
export function modelError(error: unknown): Error {
  if (!(error instanceof ModelError)) return error as Error;
  if (error.code === "noCredentials") return rpcError("authRequired", error.message, { provider: error.provider });
  return rpcError("invalidParams", error.message, { reason: error.code });
}
