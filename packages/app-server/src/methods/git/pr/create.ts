import { createPullRequest } from "@knightcode/repo/git/ops/pull-request";
import type { Handler } from "../../../rpc/handler.js";
import { onThreadCheckout } from "../../../git/thread-checkout.js";

/** git/pr/create: gh pr create for the current branch, its arguments an array. */
export const handler: Handler<"git/pr/create"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return onThreadCheckout(threads, params.threadId, ctx.signal, ({ git }) => {
    const { title, body, draft, base } = params;
    return createPullRequest(git, {
      ...(title !== undefined ? { title } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(draft !== undefined ? { draft } : {}),
      ...(base !== undefined ? { base } : {}),
    });
  });
};
