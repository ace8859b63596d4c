import type { JSX } from "preact";

/** Where the user writes to a thread. */
export function Composer({ threadId }: { threadId: string }): JSX.Element {
  return <form class="composer" aria-label="Message" data-thread={threadId} />;
}
