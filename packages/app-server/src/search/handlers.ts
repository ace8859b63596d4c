import type { Handler } from "../rpc/handler.js";

/**
 * file/search answers without the thread layer: a picker's first query
 * should wait for fd, not for the agent to load (docs/file-search.md).
 * Its code loads on the first search.
 */
const fileSearch: Handler<"file/search"> = async (params, ctx) => (await import("./file-search.js")).searchFiles(params, ctx);

export const searchHandlers = {
  "file/search": fileSearch,
};
