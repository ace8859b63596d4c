import { ListingError, type ThreadSummary } from "@knightcode/agent";
import type { ClientRequestResult } from "@knightcode/app-server-protocol";
import { pageForWire, readPage } from "../history/page.js";
import { responseBudget } from "../payloads/refs.js";
import { rpcError } from "../rpc/errors.js";
import type { ThreadManager } from "./manager.js";
import type { ThreadHandler } from "./thread-handler.js";

type WireSummary = ClientRequestResult<"thread/list">["threads"][number];

/** Long enough for any reason the server gives, short enough for a sidebar row. */
const STATUS_MESSAGE_MAX = 500;

function wireSummary(summary: ThreadSummary, threads: ThreadManager): WireSummary {
  const status = threads.statusOf(summary.id);
  return {
    id: summary.id,
    title: summary.title,
    ...(summary.name === undefined ? {} : { name: summary.name }),
    cwd: summary.cwd,
    createdAt: summary.createdAt,
    updatedAt: summary.updatedAt,
    ...(summary.forkedFromId === undefined ? {} : { forkedFromId: summary.forkedFromId }),
    workspace: { mode: summary.workspaceMode },
    archived: summary.archived,
    status: status.type === "systemError" ? { type: "systemError", message: status.message.slice(0, STATUS_MESSAGE_MAX) } : status,
    sessionFile: summary.path,
  };
}

function listingError(error: unknown): Error {
  if (!(error instanceof ListingError)) return error as Error;
  if (error.code === "invalidCursor") return rpcError("invalidCursor", error.message);
  if (error.code === "invalidParams") return rpcError("invalidParams", error.message);
  return rpcError("internal", error.message);
}

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

/** Saved history without loading, locking or writing: archived threads, and threads another process owns, too. */
export const readThread: ThreadHandler<"thread/read"> = async (params, _ctx, threads) => {
  const found = threads.find(params.threadId);
  if (!found) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const page = await readPage(found.path, params.threadId, params.cursor ?? undefined);
  let summary: ThreadSummary | undefined;
  try {
    summary = await threads.listing.summaryOf(found.path);
  } catch (error) {
    throw listingError(error);
  }
  if (!summary) throw rpcError("threadNotFound", `no saved thread ${params.threadId}`);
  const thread = wireSummary(summary, threads);
  return { thread, ...pageForWire(page, params.threadId, threads.context.payloads, responseBudget({ thread })) };
};
