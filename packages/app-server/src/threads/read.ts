import type { ThreadSummary } from "@knightcode/agent";
import { pageForWire, readPage, skipKnownTurns } from "../history/page.js";
import { BodylessTurn } from "../history/turns.js";
import { responseBudget } from "../payloads/refs.js";
import { rpcError } from "../rpc/errors.js";
import type { CatalogHandler } from "./catalog-handler.js";
import { listingError, wireSummary } from "./summary.js";

/** thread/read: saved history without loading, locking or writing: archived threads, and threads another process owns, too. */
export const readThread: CatalogHandler<"thread/read"> = async (params, _ctx, catalog) => {
  const found = catalog.locator.find(params.threadId);
  if (!found) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const saved = catalog.context.savedTurns;
  let page = await readPage(found.path, params.threadId, params.cursor ?? undefined, skipKnownTurns(saved, params.threadId));
  let summary: ThreadSummary | undefined;
  try {
    summary = await catalog.listing.summaryOf(found.path);
  } catch (error) {
    throw listingError(error);
  }
  if (!summary) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const thread = wireSummary(summary, catalog);
  const wire = () => pageForWire(page, params.threadId, catalog.context.payloads, responseBudget({ thread }), { saved });
  try {
    return { thread, ...wire() };
  } catch (error) {
    if (!(error instanceof BodylessTurn)) throw error;
    // A turn passed over was not kept after all (its reference expired meanwhile): the page whole.
    page = await readPage(found.path, params.threadId, params.cursor ?? undefined);
    return { thread, ...wire() };
  }
};
