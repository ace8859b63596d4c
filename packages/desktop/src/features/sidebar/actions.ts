import type { ThreadSummary } from "@knightcode/app-server-protocol";
import { serverInfo } from "../../connection/connection.js";
import { activeThreadId, openThread } from "../../state/app-state.js";
import { adoptStarted, openThreadSignal } from "../../state/open-threads.js";
import { reportError, toast } from "../../state/toasts.js";
import { confirmAction } from "../../ui/modal.js";
import { serverProject } from "../../connection/token.js";
import { groupByProject, query, rows, sidebarModel } from "./store.js";

const LAST_FOLDER = "knightcode.lastProjectFolder";

export function titleOf(row: Pick<ThreadSummary, "title">): string {
  return row.title || "New thread";
}

/** Starts a thread, shows it, and remembers the folder for the next one; its id. Rejects with the server's error. */
export async function startThread(cwd: string, worktree: boolean): Promise<string> {
  const result = await sidebarModel.start(cwd, worktree);
  localStorage.setItem(LAST_FOLDER, cwd);
  adoptStarted(result);
  openThread(result.thread.id);
  return result.thread.id;
}

/** A thread whose composer takes the focus when its screen first draws (one started from the first screen). */
let focusComposerOf: string | undefined;

export function requestComposerFocus(threadId: string): void {
  focusComposerOf = threadId;
}

/** Whether `threadId`'s screen should focus its composer; asked once. */
export function takeComposerFocus(threadId: string): boolean {
  if (focusComposerOf !== threadId) return false;
  focusComposerOf = undefined;
  return true;
}

/** The last part of a project's path, as the sidebar names its group. */
export function projectName(cwd: string): string {
  const parts = cwd.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? cwd;
}

/** A project group's own "New thread" button: no questions asked. */
export function startThreadIn(cwd: string): void {
  startThread(cwd, false).catch((error: unknown) => reportError(error, "Could not start a thread"));
}

/**
 * Where a thread from the first screen runs: the folder `knightcode desktop`
 * was started in, else the last folder used, else the newest project in
 * the list, else the home folder.
 */
export function startFolder(): string {
  return serverProject() ?? localStorage.getItem(LAST_FOLDER) ?? rows.value[0]?.cwd ?? serverInfo.value?.platform.homeDir ?? "";
}

/** The projects of the listed threads, newest first, each once. */
export function recentProjects(limit = 8): string[] {
  const seen = new Set<string>();
  const start = serverProject();
  if (start) seen.add(start);
  for (const row of rows.value) {
    if (seen.size >= limit) break;
    seen.add(row.cwd);
  }
  return [...seen];
}

/** The open thread's project, else the last folder used, else the home folder. */
export function defaultFolder(): string {
  const open = activeThreadId.value;
  if (open) {
    const row = rows.value.find((r) => r.id === open);
    if (row) return row.cwd;
    const thread = openThreadSignal(open).value?.thread;
    if (thread && thread.workspace.mode === "local") return thread.cwd;
  }
  return localStorage.getItem(LAST_FOLDER) ?? serverInfo.value?.platform.homeDir ?? "";
}

export async function archiveThread(row: ThreadSummary): Promise<void> {
  const yes = await confirmAction({
    title: "Archive this thread?",
    body: `“${titleOf(row)}” moves to Archived. You can unarchive it from there.`,
    confirm: "Archive",
  });
  if (!yes) return;
  try {
    // Chosen before the row leaves the list: the one below it in the sidebar, else the one above.
    const next = neighbourOf(row.id);
    await sidebarModel.archive(row.id);
    // The page forgets an archived thread: the next one opens, or the first screen when none is left.
    if (activeThreadId.value === row.id) {
      if (next) openThread(next);
      else activeThreadId.value = undefined;
    }
    toast(`Archived “${titleOf(row)}”`, "success");
  } catch (error) {
    reportError(error, "Could not archive the thread");
  }
}

/** The row after `threadId` in the sidebar's order (grouped by project), else the one before it. */
function neighbourOf(threadId: string): string | undefined {
  const order = groupByProject(rows.value, query.value).flatMap((group) => group.rows.map((r) => r.id));
  const at = order.indexOf(threadId);
  if (at < 0) return order[0];
  return order[at + 1] ?? order[at - 1];
}

/** Names a thread; the sidebar and the header follow thread/name/updated. */
export async function renameThread(threadId: string, name: string): Promise<void> {
  await sidebarModel.rename(threadId, name);
}

/** Copies a thread into a new one, "<name> (fork)", and opens the copy (its history comes with the resume). */
export async function forkThread(threadId: string): Promise<void> {
  try {
    const forked = await sidebarModel.fork(threadId);
    openThread(forked.thread.id);
    toast(`Forked into “${forked.thread.name || "New thread"}”`, "success");
  } catch (error) {
    reportError(error, "Could not fork the thread");
  }
}

export async function unarchiveThread(row: ThreadSummary): Promise<void> {
  try {
    await sidebarModel.unarchive(row.id);
    toast(`Unarchived “${titleOf(row)}”`, "success");
  } catch (error) {
    reportError(error, "Could not unarchive the thread");
  }
}

export async function deleteThread(row: ThreadSummary): Promise<void> {
  const yes = await confirmAction({
    title: "Delete this thread for good?",
    body: `“${titleOf(row)}” and its whole history are removed. This cannot be undone.`,
    confirm: "Delete",
    danger: true,
  });
  if (!yes) return;
  try {
    await sidebarModel.remove(row.id);
    if (activeThreadId.value === row.id) activeThreadId.value = undefined;
  } catch (error) {
    reportError(error, "Could not delete the thread");
  }
}
