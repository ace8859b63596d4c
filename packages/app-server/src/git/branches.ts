import { createBranch, listBranches, switchBranch } from "@knightcode/agent";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { onThreadCheckout } from "./thread-checkout.js";

/** git/branches: the local branches and the current one. */
export const gitBranches: ThreadHandler<"git/branches"> = (params, ctx, threads) => onThreadCheckout(threads, params.threadId, ctx.signal, ({ git }) => listBranches(git));

/** git/branch/create: "Create branch here", while no turn runs in the checkout. */
export const gitBranchCreate: ThreadHandler<"git/branch/create"> = (params, ctx, threads) =>
  onThreadCheckout(threads, params.threadId, ctx.signal, ({ git, exclusive }) => exclusive(() => createBranch(git, params.name)));

/** git/branch/switch: checks out a local branch, while no turn runs in the checkout. */
export const gitBranchSwitch: ThreadHandler<"git/branch/switch"> = (params, ctx, threads) =>
  onThreadCheckout(threads, params.threadId, ctx.signal, ({ git, exclusive }) => exclusive(() => switchBranch(git, params.name)));
