import { conn } from "../../connection/connection.js";
import { activeThreadId } from "../../state/app-state.js";
import { reportError } from "../../state/toasts.js";
import { createSidebarModel } from "./model.js";
import { createUnreadMarks } from "./unread.js";

/** The page's one sidebar model, over the page's connection; the names below are its parts, for the views. */
export const unreadMarks = createUnreadMarks(typeof localStorage === "undefined" ? undefined : localStorage);
export const unread = unreadMarks.ids;

export const sidebarModel = createSidebarModel({ conn, activeThreadId, unread: unreadMarks, reportError });

export const { rows, view, query, listState, failedLastTurn, loadMore, showView } = sidebarModel;
export const watchThreadList = (): (() => void) => sidebarModel.watch();

export { groupByProject, PAGE_SIZE, type ListView } from "./model.js";
