import type { ThreadSummary } from "@knightcode/agent";
import { pageForWire, readPage } from "../history/page.js";
import { responseBudget } from "../payloads/refs.js";
import { rpcError } from "../rpc/errors.js";
import type { CatalogHandler } from "./catalog-handler.js";
import { listingError, wireSummary } from "./summary.js";

/** thread/read: saved history without loading, locking or writing: archived threads, and threads another process owns, too. */
export const readThread: CatalogHandler<"thread/read"> = async (params, _ctx, catalog) => {
  const found = catalog.locator.find(params.threadId);
  if (!found) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const page = await readPage(found.path, params.threadId, params.cursor ?? undefined);
  let summary: ThreadSummary | undefined;
  try {
    summary = await catalog.listing.summaryOf(found.path);
  } catch (error) {
    throw listingError(error);
  }
  if (!summary) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const thread = wireSummary(summary, catalog);
  return { thread, ...pageForWire(page, params.threadId, catalog.context.payloads, responseBudget({ thread }), { saved: catalog.context.savedTurns }) };
};
