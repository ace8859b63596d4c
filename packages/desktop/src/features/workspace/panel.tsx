import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import type { Panel } from "../../state/app-state.js";
import { DiffView } from "./diff-view.js";
import { GitView } from "./git-view.js";
import { watchWorkspaceProgress } from "./store.js";
import "./workspace.css";

export { pendingReviewComments, takeReviewComments, restoreReviewComments, watchWorkspaceProgress } from "./store.js";

/** The side panel of a thread: diffs, or git status and actions. */
export function WorkspacePanel({ threadId, panel }: { threadId: string; panel: Exclude<Panel, "none"> }): JSX.Element {
  // Kept for the page's lifetime: setup output for a thread may arrive while the panel is closed.
  useEffect(() => void watchWorkspaceProgress(), []);
  return (
    <aside class="workspace-panel" aria-label={panel === "diff" ? "Changes" : "Git"} data-thread={threadId} data-panel={panel}>
      <h2 class="ws-title">{panel === "diff" ? "Changes" : "Git"}</h2>
      {panel === "diff" ? <DiffView key={threadId} threadId={threadId} /> : <GitView key={threadId} threadId={threadId} />}
    </aside>
  );
}
