import { listingError, wireSummary } from "./summary.js";
import type { ThreadHandler } from "./thread-handler.js";

/** thread/list: summaries from the folder indexes, newest first, with each thread's live status. */
export const listThreads: ThreadHandler<"thread/list"> = async (params, ctx, threads) => {
  try {
    const result = await threads.listing.list({
      folders: threads.sessionFolders(),
      ...(params.cwd === undefined ? {} : { cwd: params.cwd }),
      ...(params.archived === undefined ? {} : { archived: params.archived }),
      ...(params.cursor == null ? {} : { cursor: params.cursor }),
      ...(params.limit === undefined ? {} : { limit: params.limit }),
      signal: ctx.signal,
    });
    for (const summary of result.threads) threads.moved(summary.id, summary.path);
    return {
      threads: result.threads.map((summary) => wireSummary(summary, threads)),
      ...(result.nextCursor === undefined ? {} : { nextCursor: result.nextCursor }),
    };
  } catch (error) {
    throw listingError(error);
  }
};
