import type { Handler } from "../../rpc/handler.js";
import { listingError, wireSummary } from "../../threads/summary.js";

/** thread/list: summaries from the folder indexes, newest first, with each thread's live status. */
export const handler: Handler<"thread/list"> = async (params, ctx) => {
  const catalog = await ctx.services.catalog();
  try {
    const result = await catalog.listing.list({
      folders: catalog.locator.sessionRoots(),
      ...(params.cwd === undefined ? {} : { cwd: params.cwd }),
      ...(params.archived === undefined ? {} : { archived: params.archived }),
      ...(params.search === undefined ? {} : { search: params.search }),
      ...(params.parentThreadId === undefined ? {} : { parentThreadId: params.parentThreadId }),
      ...(params.cursor == null ? {} : { cursor: params.cursor }),
      ...(params.limit === undefined ? {} : { limit: params.limit }),
      signal: ctx.signal,
    });
    for (const summary of result.threads) catalog.locator.moved(summary.id, summary.path);
    return {
      threads: result.threads.map((summary) => wireSummary(summary, catalog)),
      ...(result.nextCursor === undefined ? {} : { nextCursor: result.nextCursor }),
    };
  } catch (error) {
    throw listingError(error);
  }
};
