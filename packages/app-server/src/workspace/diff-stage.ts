import { changeIndex } from "@knightcode/repo/git/diff/stage";
import type { Handler } from "../rpc/handler.js";
import { exclusiveInCheckout } from "../git/checkout.js";
import { threadGit, withDiffErrors } from "./diff-context.js";

/** git/stage or git/unstage: everything, a path or a hunk into or out of the index, with the checkout held. */
export function indexChange(unstage: boolean): Handler<"git/stage" | "git/unstage"> {
  return async (params, ctx) => {
    const threads = await ctx.services.threads();
    return threads.using(params.threadId, (thread) =>
      withDiffErrors(async () => {
        const git = await threadGit(thread, threads.context.env);
        const { threadId: _threadId, ...request } = params;
        return exclusiveInCheckout(threads.loadedThreads(), git.repo.root, () => changeIndex(git, request, unstage));
      }),
    );
  };
}
