import type { Handler } from "../../rpc/handler.js";

/** Reads what is already loaded: listing never loads the thread manager or a thread. */
export const handler: Handler<"serverRequest/list"> = (_params, ctx) => ({ requests: ctx.services.pendingRequests() });
