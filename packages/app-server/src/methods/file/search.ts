import { rpcError } from "../../rpc/errors.js";
import type { Handler } from "../../rpc/handler.js";
import { fileSearchOf } from "../../search/file-search.js";

/**
 * file/search: fd's listing of cwd, cached, matched fuzzily against the
 * query. It loads no thread layer: a picker's first query should wait for
 * fd, not for the agent (docs/file-search.md).
 */
export const handler: Handler<"file/search"> = async (params, ctx) => {
  try {
    return await fileSearchOf(ctx.server, ctx.services).search(params, ctx.signal);
  } catch (error) {
    // The connection closed or the deadline passed: nobody reads the answer, and it is no fault to log.
    if (ctx.signal.aborted && error === ctx.signal.reason) throw rpcError("internal", "the search was cancelled");
    throw error;
  }
};
