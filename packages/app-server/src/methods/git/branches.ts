import { listBranches } from "@knightcode/repo/git/ops/branches";
import { onThreadCheckout } from "../../git/thread-checkout.js";
import type { Handler } from "../../rpc/handler.js";

/** git/branches: the local branches and the current one. */
export const handler: Handler<"git/branches"> = async (params, ctx) =>
  onThreadCheckout(await ctx.services.threads(), params.threadId, ctx.signal, ({ git }) => listBranches(git));
