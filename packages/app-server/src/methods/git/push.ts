import { pushBranch } from "@knightcode/repo/git/ops/push";
import type { LocalPushTarget } from "@knightcode/repo/git/ops/local-remote";
import { confirmForRequest } from "../../ui/request-confirm.js";
import type { Handler } from "../../rpc/handler.js";
import { onThreadCheckout } from "../../git/thread-checkout.js";

/** What the user is asked before a push runs receive-pack in a repository on this machine. */
function localPushQuestion(target: LocalPushTarget, branch: string, root: string): { title: string; message: string } {
  const where = target.insideWorkTree ? `inside this working tree (${root})` : "on this machine";
  const folders = target.paths.map((path) => `  ${path}`).join("\n");
  return {
    title: "Push to a folder on this machine?",
    message:
      `${target.remote} is a repository in a folder ${where}, not a server:\n${folders}\n\n` +
      `Pushing ${branch} there writes into that folder. None of its hooks or configured commands run for this push.`,
  };
}

/** git/push: the current branch to its upstream (or origin), one refspec, never forced; the upstream set the first time. */
export const handler: Handler<"git/push"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return onThreadCheckout(threads, params.threadId, ctx.signal, ({ git, thread }) =>
    pushBranch(git, {
      ...(params.remote !== undefined ? { remote: params.remote } : {}),
      confirmLocal: (target, branch) => confirmForRequest(thread, ctx.connection, localPushQuestion(target, branch, git.repo.root), ctx.signal),
    }),
  );
};
