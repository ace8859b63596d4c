import { pushBranch } from "@knightcode/agent";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { onThreadCheckout } from "./thread-checkout.js";

/** git/push: the current branch to its upstream (or origin), one refspec, never forced; the upstream set the first time. */
export const gitPush: ThreadHandler<"git/push"> = (params, ctx, threads) => onThreadCheckout(threads, params.threadId, ctx.signal, ({ git }) => pushBranch(git, params.remote));
