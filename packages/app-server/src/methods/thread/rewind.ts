import type { Handler } from "../../rpc/handler.js";
import { rewindThread } from "../../workspace/rewind.js";

/** thread/rewind: the thread back to just before a turn, its conversation, its code or both (workspace/rewind.ts). */
export const handler: Handler<"thread/rewind"> = async (params, ctx) => rewindThread(await ctx.services.threads(), params, ctx.context.env);
