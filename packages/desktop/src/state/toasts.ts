import { signal } from "@preact/signals";

export type ToastKind = "info" | "warning" | "error" | "success";
export interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

export const toasts = signal<Toast[]>([]);
let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

/** Shows a short message; errors stay until dismissed, the rest leave after a few seconds. */
export function toast(text: string, kind: ToastKind = "info"): number {
  const id = nextId++;
  toasts.value = [...toasts.value, { id, kind, text }].slice(-5);
  if (kind !== "error")
    timers.set(
      id,
      setTimeout(() => dismissToast(id), 6000),
    );
  return id;
}

export function dismissToast(id: number): void {
  const timer = timers.get(id);
  if (timer !== undefined) clearTimeout(timer);
  timers.delete(id);
  toasts.value = toasts.value.filter((t) => t.id !== id);
}

/** Turns a failed request into a toast: the server's message, which names what went wrong. */
export function reportError(error: unknown, doing?: string): void {
  const message = error instanceof Error ? error.message : String(error);
  toast(doing ? `${doing}: ${message}` : message, "error");
}
