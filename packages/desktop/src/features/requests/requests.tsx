import type { JSX } from "preact";

/** Approval, dialog and question cards the server is waiting on for one thread. */
export function PendingRequests({ threadId }: { threadId: string }): JSX.Element | null {
  void threadId;
  return null;
}

/** Installs the page's server-request handlers; returns the function that removes them. */
export function installRequestHandlers(): () => void {
  return () => undefined;
}
