import { existsSync } from "node:fs";
import { childEnvironment } from "@knightcode/system/process/child-env";
import { CommitMessageError } from "@knightcode/agent/models/commit-message";
import { discoverRepo } from "@knightcode/repo/git/repo";
import type { GitContext } from "@knightcode/repo/git/ops/context";
import { rpcError } from "../rpc/errors.js";
import type { LoadedThread } from "../threads/loaded-thread.js";
import type { ThreadManager } from "../threads/manager.js";
import { exclusiveInCheckout } from "./checkout.js";
import { withGitErrors } from "./errors.js";

/**
 * The environment git, the user's hooks and gh run with: the server's,
 * without the providers' keys and the server's token, as every program
 * a thread starts.
 */
function gitEnvironment(threads: ThreadManager): NodeJS.ProcessEnv {
  const { env, registry, secrets } = threads.environment;
  return childEnvironment(env, { withholdNames: registry.keyEnvNames(), withholdValues: secrets?.values ?? [] });
}

/** A commit message the model could not write, as the wire's error; the rest as withGitErrors maps them. */
function opError(error: unknown): unknown {
  if (error instanceof CommitMessageError) return rpcError("internal", error.message);
  return error;
}

export interface ThreadCheckout {
  git: GitContext;
  thread: LoadedThread;
  /** Runs `work` while no turn runs in the checkout, and none starts (turnInProgress during one). */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Runs `work` on a thread's own checkout: the thread loaded and held for
 * the while (threadNotFound when there is no such thread), the repository
 * around its folder found (notGitRepo outside one), and every git failure
 * answered as the wire's error.
 */
export function onThreadCheckout<T>(threads: ThreadManager, threadId: string, signal: AbortSignal, work: (checkout: ThreadCheckout) => Promise<T>): Promise<T> {
  return threads.using(threadId, (thread) =>
    withGitErrors(async () => {
      // git cannot even start in a folder that is gone; that is no repository either.
      if (!existsSync(thread.cwd)) throw rpcError("notGitRepo", `the thread's folder ${thread.cwd} no longer exists`);
      const env = gitEnvironment(threads);
      const repo = await discoverRepo(thread.cwd, env);
      const git: GitContext = { repo, env, signal };
      try {
        return await work({ git, thread, exclusive: (inner) => exclusiveInCheckout(threads.loadedThreads(), repo.root, inner) });
      } catch (error) {
        throw opError(error);
      }
    }),
  );
}
