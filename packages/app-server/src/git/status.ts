import { readStatus } from "@knightcode/agent";
import type { ThreadHandler } from "../threads/thread-handler.js";
import { onThreadCheckout } from "./thread-checkout.js";

/** git/status: the checkout's branch, upstream, change counts and operation in progress; reads only. */
export const gitStatus: ThreadHandler<"git/status"> = (params, ctx, threads) => onThreadCheckout(threads, params.threadId, ctx.signal, ({ git }) => readStatus(git));
