import { CommandRefusedError, GitRequestError } from "@knightcode/repo/git/ops/errors";
import { GitAuthError, GitCommandError, GitConflictError, NotGitRepoError, ToolMissingError } from "@knightcode/repo/git/errors";
import { AppServerError } from "@knightcode/app-server-protocol";
import { rpcError } from "../rpc/errors.js";

/**
 * The engine's git failures as the wire's errors: `notGitRepo`,
 * `gitConflict` with its reason and details, `toolMissing`,
 * `authRequired`, a request git cannot do `invalidParams`; a git command that failed otherwise is `internal` with
 * what git said. Anything else is returned as it was.
 */
export function gitRpcError(error: unknown): unknown {
  if (error instanceof AppServerError) return error;
  if (error instanceof NotGitRepoError) return rpcError("notGitRepo", error.message);
  if (error instanceof GitConflictError) {
    const { paths, output, recoveryInstructions, patch } = error.details;
    return rpcError("gitConflict", error.message, {
      reason: error.reason,
      ...(paths ? { paths } : {}),
      ...(output !== undefined ? { output } : {}),
      ...(recoveryInstructions !== undefined ? { recoveryInstructions } : {}),
      ...(patch !== undefined ? { patch } : {}),
    });
  }
  if (error instanceof ToolMissingError) return rpcError("toolMissing", error.message, { tool: error.tool });
  if (error instanceof GitAuthError) return rpcError("authRequired", error.message);
  if (error instanceof GitRequestError) return rpcError("invalidParams", error.message, error.reason === undefined ? undefined : { reason: error.reason });
  if (error instanceof CommandRefusedError) return rpcError("internal", error.message, { output: error.output });
  if (error instanceof GitCommandError) return rpcError("internal", error.message, { output: error.stderr });
  return error;
}

/** Runs `work`, answering its git failures as the wire's errors. */
export async function withGitErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw gitRpcError(error);
  }
}
