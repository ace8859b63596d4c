import { switchBranch } from "@knightcode/repo/git/ops/branches";
import { onThreadCheckout } from "../../../git/thread-checkout.js";
import type { Handler } from "../../../rpc/handler.js";

/** git/branch/switch: checks out a local branch, while no turn runs in the checkout. */
export const handler: Handler<"git/branch/switch"> = async (params, ctx) =>
  onThreadCheckout(await ctx.services.threads(), params.threadId, ctx.signal, ({ git, exclusive }) => exclusive(() => switchBranch(git, params.name)));
