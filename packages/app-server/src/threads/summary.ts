import { ListingError } from "@knightcode/store/listing/errors";
import { workspaceView } from "@knightcode/repo/worktrees/workspace";
import type { StoredThreadSummary } from "@knightcode/store/listing/types";
import type { ThreadSummary } from "@knightcode/app-server-protocol";
import { rpcError } from "../rpc/errors.js";
import type { ThreadCatalog } from "./catalog.js";

/** Long enough for any reason the server gives, short enough for a sidebar row. */
const STATUS_MESSAGE_MAX = 500;

/** A listed thread as thread/list and thread/read carry it, with its live status. */
export function wireSummary(summary: StoredThreadSummary, catalog: ThreadCatalog): ThreadSummary {
  const status = catalog.statusOf(summary.id);
  return {
    id: summary.id,
    title: summary.title,
    ...(summary.name === undefined ? {} : { name: summary.name }),
    cwd: summary.cwd,
    createdAt: summary.createdAt,
    updatedAt: summary.updatedAt,
    ...(summary.forkedFromId === undefined ? {} : { forkedFromId: summary.forkedFromId }),
    ...(summary.parentThreadId === undefined ? {} : { parentThreadId: summary.parentThreadId }),
    ...(summary.parentCallId === undefined ? {} : { parentCallId: summary.parentCallId }),
    workspaceMode: summary.workspaceMode,
    workspace: summary.workspace ? workspaceView(summary.workspace) : { mode: summary.workspaceMode },
    archived: summary.archived,
    status: status.type === "systemError" ? { type: "systemError", message: status.message.slice(0, STATUS_MESSAGE_MAX) } : status,
    sessionFile: summary.path,
  };
}

/** Maps a listing failure to the protocol's error. */
export function listingError(error: unknown): Error {
  if (!(error instanceof ListingError)) return error as Error;
  if (error.code === "invalidCursor") return rpcError("invalidCursor", error.message);
  if (error.code === "invalidParams") return rpcError("invalidParams", error.message);
  return rpcError("internal", error.message);
}
