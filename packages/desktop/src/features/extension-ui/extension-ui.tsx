import type { JSX } from "preact";

/** Extension statuses and working message for the thread header. */
export function ExtensionStatus({ threadId }: { threadId: string }): JSX.Element | null {
  void threadId;
  return null;
}

/** Extension widgets above or below the composer. */
export function Widgets({ threadId, placement }: { threadId: string; placement: "aboveEditor" | "belowEditor" }): JSX.Element | null {
  void threadId;
  void placement;
  return null;
}

/** Keeps extension UI current (ui/state, ui/widget, ui/notify); returns the function that stops it. */
export function watchExtensionUi(): () => void {
  return () => undefined;
}
