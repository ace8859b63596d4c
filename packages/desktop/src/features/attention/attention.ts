import { effect, signal } from "@preact/signals";
import type { ThreadStatus, ThreadSummary } from "@knightcode/app-server-protocol";
import { conn } from "../../connection/connection.js";
import { activeThreadId } from "../../state/app-state.js";
import { rows } from "../sidebar/store.js";

/**
 * What needs the user: the tab title counts the threads waiting on them, and
 * (when the user turned it on) a background thread that finishes or starts
 * waiting raises a browser notification.
 */
const NOTIFY_KEY = "knightcode.notify";

/** Whether the user asked for notifications; off until they turn it on. */
export const notifyWanted = signal<boolean>(readWanted());
/** The browser's answer, kept in a signal so the setting shows it. */
export const notifyPermission = signal<NotificationPermission | "unsupported">(currentPermission());

function readWanted(): boolean {
  return typeof localStorage !== "undefined" && localStorage.getItem(NOTIFY_KEY) === "on";
}

function currentPermission(): NotificationPermission | "unsupported" {
  return typeof Notification === "undefined" ? "unsupported" : Notification.permission;
}

export const isWaiting = (status: ThreadStatus): boolean => status.type === "active" && status.waitingOn.length > 0;

/** Threads in the sidebar's list that wait on an approval or a dialog. */
export function waitingCount(list: readonly ThreadSummary[]): number {
  return list.filter((row) => isWaiting(row.status)).length;
}

/**
 * Turns notifications on or off. Called from the setting's switch only: the
 * browser is asked for permission in answer to that click, never unprompted.
 */
export async function setNotify(on: boolean): Promise<void> {
  if (on && typeof Notification !== "undefined" && Notification.permission === "default") {
    notifyPermission.value = await Notification.requestPermission();
  } else {
    notifyPermission.value = currentPermission();
  }
  const granted = notifyPermission.value === "granted";
  notifyWanted.value = on && granted;
  if (notifyWanted.value) localStorage.setItem(NOTIFY_KEY, "on");
  else localStorage.removeItem(NOTIFY_KEY);
}

function titleOf(threadId: string): string {
  const row = rows.peek().find((r) => r.id === threadId);
  return row?.title || row?.name || "A thread";
}

function notify(threadId: string, body: string): void {
  if (!notifyWanted.peek() || currentPermission() !== "granted" || threadId === activeThreadId.peek()) return;
  // One notification per thread at a time: a newer one replaces the older.
  new Notification(titleOf(threadId), { body, tag: `knightcode-${threadId}` });
}

/** Keeps the title and the notifications; returns what stops both. */
export function watchAttention(): () => void {
  const base = document.title || "KnightCode";
  const waiting = new Set<string>();
  const c = conn();
  const stops = [
    effect(() => {
      const count = waitingCount(rows.value);
      document.title = count > 0 ? `(${count}) ${base}` : base;
    }),
    c.on("thread/status/changed", ({ threadId, status }) => {
      const now = isWaiting(status);
      if (now && !waiting.has(threadId)) notify(threadId, "Waiting on you");
      if (now) waiting.add(threadId);
      else waiting.delete(threadId);
    }),
    c.on("thread/turn/completed", ({ threadId, turn }) => notify(threadId, turn.status === "failed" ? "The turn failed" : "Finished")),
  ];
  return () => {
    for (const stop of stops) stop();
    document.title = base;
  };
}
