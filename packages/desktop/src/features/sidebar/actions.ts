import type { ThreadSummary } from "@knightcode/app-server-protocol";
import { conn, serverInfo } from "../../connection/connection.js";
import { activeThreadId, openThread } from "../../state/app-state.js";
import { adoptStarted, openThreadSignal } from "../../state/open-threads.js";
import { reportError, toast } from "../../state/toasts.js";
import { confirmAction } from "../../ui/modal.js";
import { rows } from "./store.js";

const LAST_FOLDER = "knightcode.lastProjectFolder";

export function titleOf(row: Pick<ThreadSummary, "title">): string {
  return row.title || "New thread";
}

/** Starts a thread, shows it, and remembers the folder for the next one. Rejects with the server's error. */
export async function startThread(cwd: string, worktree: boolean): Promise<void> {
  const result = await conn().request("thread/start", { cwd, ...(worktree ? { workspace: { mode: "worktree" as const } } : {}) });
  localStorage.setItem(LAST_FOLDER, cwd);
  adoptStarted(result);
  openThread(result.thread.id);
}

/** A project group's own "New thread" button: no questions asked. */
export function startThreadIn(cwd: string): void {
  startThread(cwd, false).catch((error: unknown) => reportError(error, "Could not start a thread"));
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
    await conn().request("thread/archive", { threadId: row.id });
    // The page forgets an archived thread; leave its screen rather than show nothing.
    if (activeThreadId.value === row.id) activeThreadId.value = undefined;
    toast(`Archived “${titleOf(row)}”`, "success");
  } catch (error) {
    reportError(error, "Could not archive the thread");
  }
}

export async function unarchiveThread(row: ThreadSummary): Promise<void> {
  try {
    await conn().request("thread/unarchive", { threadId: row.id });
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
    await conn().request("thread/delete", { threadId: row.id });
    if (activeThreadId.value === row.id) activeThreadId.value = undefined;
  } catch (error) {
    reportError(error, "Could not delete the thread");
  }
}
