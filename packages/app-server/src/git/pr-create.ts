import { createPullRequest } from "@knightcode/agent";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { onThreadCheckout } from "./thread-checkout.js";

/** git/pr/create: gh pr create for the current branch, its arguments an array. */
export const gitPrCreate: ThreadHandler<"git/pr/create"> = (params, ctx, threads) =>
  onThreadCheckout(threads, params.threadId, ctx.signal, ({ git }) => {
    const { title, body, draft, base } = params;
    return createPullRequest(git, { ...(title !== undefined ? { title } : {}), ...(body !== undefined ? { body } : {}), ...(draft !== undefined ? { draft } : {}), ...(base !== undefined ? { base } : {}) });
  });
