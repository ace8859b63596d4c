import { WorktreeError } from "@knightcode/repo/worktrees/errors";
import { configError } from "../config/errors.js";
import { gitRpcError } from "../git/errors.js";
import { rpcError } from "../rpc/errors.js";

/**
 * The worktree code's failures as the wire's: a bad request is
 * invalidParams (naming `field` when given), git's refusals their git
 * codes (notGitRepo, gitConflict with its reason), a broken environments
 * file internal; a folder that could not be made is internal too.
 */
export function worktreeRpcError(error: unknown, field?: string): unknown {
  if (error instanceof WorktreeError) {
    if (error.code === "invalidParams") return rpcError("invalidParams", field ? `${field}: ${error.message}` : error.message);
    return rpcError("internal", error.message);
  }
  return configError(gitRpcError(error));
}

/** Runs `work`, answering its failures as the wire's errors. */
export async function withWorktreeErrors<T>(work: () => Promise<T> | T, field?: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw worktreeRpcError(error, field);
  }
}
