import { TrustError } from "@knightcode/agent/trust/errors";
import { rpcError } from "../rpc/errors.js";

/** Maps a trust store failure: a folder that is not one is the caller's mistake, anything else the disk's. */
export function trustError(error: unknown): Error {
  if (error instanceof TrustError) {
    if (error.code === "notADirectory") return rpcError("invalidParams", error.message);
    return rpcError("internal", error.message);
  }
  return error as Error;
}
