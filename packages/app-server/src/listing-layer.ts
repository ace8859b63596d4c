/**
 * thread/list and thread/read: served from the threads on disk, with no
 * thread layer loaded, so a client's first listing never waits for the
 * agent. Each loads its own handler module: a listing needs no history
 * reader. The type requires a handler for each listing method.
 */
import type { ListingMethod } from "./handlers.js";
import type { CatalogHandler } from "./threads/catalog-handler.js";

export const listingHandlers: { [M in ListingMethod]: CatalogHandler<M> } = {
  "thread/list": async (params, ctx, catalog) => (await import("./threads/list.js")).listThreads(params, ctx, catalog),
  "thread/read": async (params, ctx, catalog) => (await import("./threads/read.js")).readThread(params, ctx, catalog),
};
