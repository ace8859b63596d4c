import { changeIndex } from "@knightcode/agent";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { exclusiveInCheckout } from "./checkout.js";
import { threadGit, withDiffErrors } from "./diff-context.js";

function indexChange(unstage: boolean): ThreadHandler<"git/stage" | "git/unstage"> {
  return async (params, _ctx, threads) => {
    return threads.using(params.threadId, (thread) =>
      withDiffErrors(async () => {
        const git = await threadGit(thread, threads.context.env);
        const { threadId: _threadId, ...request } = params;
        return exclusiveInCheckout(threads.loadedThreads(), git.repo.root, () => changeIndex(git, request, unstage));
      }),
    );
  };
}

/** git/stage: everything, a path or an unstaged hunk into the index, with the checkout held. */
export const stage: ThreadHandler<"git/stage"> = indexChange(false);

/** git/unstage: everything, a path or a staged hunk out of the index, with the checkout held. */
export const unstage: ThreadHandler<"git/unstage"> = indexChange(true);
