import type { StoredThreadSummary } from "@knightcode/store/listing/types";
import { pageForWire, pageReusable, readPage, skipKnownTurns } from "../../history/page.js";
import { responseBudget } from "../../payloads/refs.js";
import { rpcError } from "../../rpc/errors.js";
import type { Handler } from "../../rpc/handler.js";
import { listingError, wireSummary } from "../../threads/summary.js";

/**
 * thread/read: saved history without loading, locking or writing: archived
 * threads, and threads another process owns, too. A thread this server has
 * loaded shows its running turn as it stands, in progress.
 */
export const handler: Handler<"thread/read"> = async (params, ctx) => {
  const catalog = await ctx.services.catalog();
  const found = catalog.locator.find(params.threadId);
  if (!found) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const saved = catalog.context.savedTurns;
  const cursor = params.cursor ?? undefined;
  // A cursor names its branch already; without one, leafId names a branch a rewind left behind.
  const leaf = cursor === undefined ? params.leafId : undefined;
  // On the server that runs it, the running turn is read live: its transcript has no end yet, which alone would read as interrupted.
  const loaded = cursor === undefined && leaf === undefined ? ctx.services.loadedThreads?.get(params.threadId) : undefined;
  const runningAtRead = loaded?.turns.runningTurnId;
  let page = await readPage(found.path, params.threadId, cursor, skipKnownTurns(saved, params.threadId), leaf);
  let summary: StoredThreadSummary | undefined;
  try {
    summary = await catalog.listing.summaryOf(found.path);
  } catch (error) {
    throw listingError(error);
  }
  if (!summary) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const store = catalog.context.payloads;
  // A turn passed over may no longer be kept (its reference expired meanwhile), or the turn that ran when the read began has
  // ended since and its end is not on the page: then the page is read again, whole.
  const endedMeanwhile = runningAtRead !== undefined && loaded?.turns.runningTurnId !== runningAtRead;
  if (endedMeanwhile || !pageReusable(page, params.threadId, store, saved, undefined))
    page = await readPage(found.path, params.threadId, cursor, undefined, leaf);
  const thread = wireSummary(summary, catalog);
  const running = loaded?.runningTurnForWire(store);
  if (!running) return { thread, ...pageForWire(page, params.threadId, store, responseBudget({ thread }), { saved }) };
  const older = pageForWire(page, params.threadId, store, responseBudget({ thread, running }), { saved, skipTurnId: running.id });
  return { thread, ...older, turns: [...older.turns, running] };
};
