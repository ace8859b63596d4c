import type { JSX } from "preact";

/** The conversation of one thread. */
export function Transcript({ threadId }: { threadId: string }): JSX.Element {
  return <section class="transcript" aria-label="Conversation" data-thread={threadId} />;
}
