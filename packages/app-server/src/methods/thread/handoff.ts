import type { Handler } from "../../rpc/handler.js";
import { handoff } from "../../workspace/handoff.js";

/** thread/handoff: a thread and its uncommitted changes move between its worktree and the user's checkout (workspace/handoff.ts). */
export const handler: Handler<"thread/handoff"> = async (params, ctx) => handoff(await ctx.services.threads(), params, ctx);
