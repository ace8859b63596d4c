import type { JSX } from "preact";

/** The thread list, grouped by project. */
export function Sidebar(): JSX.Element {
  return <nav class="sidebar" aria-label="Threads" />;
}
