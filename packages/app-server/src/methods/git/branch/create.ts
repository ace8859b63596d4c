import { createBranch } from "@knightcode/repo/git/ops/branches";
import { onThreadCheckout } from "../../../git/thread-checkout.js";
import type { Handler } from "../../../rpc/handler.js";

/** git/branch/create: "Create branch here", while no turn runs in the checkout. */
export const handler: Handler<"git/branch/create"> = async (params, ctx) =>
  onThreadCheckout(await ctx.services.threads(), params.threadId, ctx.signal, ({ git, exclusive }) => exclusive(() => createBranch(git, params.name)));
