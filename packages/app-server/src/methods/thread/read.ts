import type { StoredThreadSummary } from "@knightcode/store/listing/types";
import { pageForWire, pageReusable, readPage, skipKnownTurns } from "../../history/page.js";
import { responseBudget } from "../../payloads/refs.js";
import { rpcError } from "../../rpc/errors.js";
import type { Handler } from "../../rpc/handler.js";
import { listingError, wireSummary } from "../../threads/summary.js";

/** thread/read: saved history without loading, locking or writing: archived threads, and threads another process owns, too. */
export const handler: Handler<"thread/read"> = async (params, ctx) => {
  const catalog = await ctx.services.catalog();
  const found = catalog.locator.find(params.threadId);
  if (!found) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const saved = catalog.context.savedTurns;
  let page = await readPage(found.path, params.threadId, params.cursor ?? undefined, skipKnownTurns(saved, params.threadId));
  let summary: StoredThreadSummary | undefined;
  try {
    summary = await catalog.listing.summaryOf(found.path);
  } catch (error) {
    throw listingError(error);
  }
  if (!summary) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const store = catalog.context.payloads;
  // A turn passed over may no longer be kept (its reference expired meanwhile): then the page is read whole.
  if (!pageReusable(page, params.threadId, store, saved, undefined)) page = await readPage(found.path, params.threadId, params.cursor ?? undefined);
  const thread = wireSummary(summary, catalog);
  return { thread, ...pageForWire(page, params.threadId, store, responseBudget({ thread }), { saved }) };
};
