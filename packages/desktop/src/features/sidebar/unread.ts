import { signal } from "@preact/signals";

/**
 * Threads that finished a turn or changed while another one was open. Kept
 * per thread id in localStorage, so a reload still shows what you missed.
 */
const PREFIX = "knightcode.unread.";

export const unread = signal<ReadonlySet<string>>(readAll());

function readAll(): Set<string> {
  const ids = new Set<string>();
  if (typeof localStorage === "undefined") return ids;
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key?.startsWith(PREFIX)) ids.add(key.slice(PREFIX.length));
  }
  return ids;
}

export function markUnread(threadId: string): void {
  if (unread.value.has(threadId)) return;
  localStorage.setItem(PREFIX + threadId, "1");
  unread.value = new Set(unread.value).add(threadId);
}

export function clearUnread(threadId: string): void {
  if (!unread.value.has(threadId)) return;
  localStorage.removeItem(PREFIX + threadId);
  const next = new Set(unread.value);
  next.delete(threadId);
  unread.value = next;
}
