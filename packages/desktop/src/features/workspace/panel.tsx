import type { JSX } from "preact";
import type { Panel } from "../../state/app-state.js";

/** The side panel of a thread: diffs, or git status and actions. */
export function WorkspacePanel({ threadId, panel }: { threadId: string; panel: Exclude<Panel, "none"> }): JSX.Element {
  return <aside class="workspace-panel" aria-label={panel === "diff" ? "Changes" : "Git"} data-thread={threadId} />;
}
