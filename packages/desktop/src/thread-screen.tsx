import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ExtensionStatus, Widgets } from "./features/extension-ui/extension-ui.js";
import { Composer } from "./features/composer/composer.js";
import { SendingMessages } from "./features/composer/sending.js";
import { takeComposerFocus } from "./features/sidebar/actions.js";
import { ThreadMenu } from "./features/sidebar/thread-menu.js";
import { PendingRequests } from "./features/requests/requests.js";
import { ReviewAction } from "./features/review/start-review.js";
import { Transcript } from "./features/transcript/transcript.js";
import { WorkspacePanel } from "./features/workspace/panel.js";
import { TerminalPanel } from "./features/terminal/terminal-panel.js";
import { openPanels, setPanelOpen } from "./features/terminal/model.js";
import { panel } from "./state/app-state.js";
import { ensureOpen, openThreadSignal } from "./state/open-threads.js";
import { IconButton } from "./ui/button.js";
import { useShortcut } from "./ui/keys.js";

/** One thread: header, conversation, what the server waits on, composer; the workspace panel beside it. */
export function ThreadScreen({ threadId }: { threadId: string }): JSX.Element {
  const state = openThreadSignal(threadId).value;
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    setError(undefined);
    ensureOpen(threadId).catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, [threadId]);
  const togglePanel = (which: "diff" | "git") => {
    panel.value = panel.value === which ? "none" : which;
  };
  useShortcut("mod+shift+d", () => togglePanel("diff"));
  useShortcut("mod+shift+g", () => togglePanel("git"));
  const section = useRef<HTMLElement>(null);
  const drawn = state !== undefined;
  // A thread started from the first screen keeps the user typing: its composer takes the focus the first screen had.
  useEffect(() => {
    if (drawn && takeComposerFocus(threadId)) section.current?.querySelector<HTMLTextAreaElement>("form.composer textarea")?.focus();
  }, [drawn, threadId]);

  if (error)
    return (
      <div class="thread-screen empty-state" role="alert">
        Could not open this thread: {error}
      </div>
    );
  if (!state)
    return (
      <div class="thread-screen empty-state" aria-busy="true">
        Loading…
      </div>
    );
  const { thread, ui } = state;
  const title = ui.title ?? thread.name;
  const side = panel.value;
  return (
    // Which load the screen shows and how many turns it brought: what a test checks after a reconnection.
    <div class={`thread-layout${side === "none" ? "" : " with-panel"}`} data-generation={state.generation} data-turns={state.resumed.turns.length}>
      <section ref={section} class="thread-screen" aria-label={`Thread ${title}`}>
        <header class="thread-header">
          <h1 class="thread-title" title={thread.cwd}>
            {title || "New thread"}
          </h1>
          <span class="thread-place">
            {thread.workspace.mode === "worktree" ? "worktree · " : ""}
            {thread.cwd}
          </span>
          <ExtensionStatus threadId={threadId} />
          <div class="thread-actions">
            <ReviewAction threadId={threadId} />
            <IconButton icon="diff" label="Changes (Ctrl+Shift+D)" aria-pressed={side === "diff"} onClick={() => togglePanel("diff")} />
            <IconButton icon="branch" label="Git (Ctrl+Shift+G)" aria-pressed={side === "git"} onClick={() => togglePanel("git")} />
            <IconButton
              icon="terminal"
              label="Commands"
              aria-pressed={openPanels.value.has(threadId)}
              onClick={() => setPanelOpen(threadId, !openPanels.value.has(threadId))}
            />
            <ThreadMenu threadId={threadId} title={title || "New thread"} />
          </div>
        </header>
        <Transcript threadId={threadId} />
        <TerminalPanel threadId={threadId} />
        <SendingMessages threadId={threadId} />
        <PendingRequests threadId={threadId} />
        <Widgets threadId={threadId} placement="aboveEditor" />
        <Composer threadId={threadId} />
        <Widgets threadId={threadId} placement="belowEditor" />
      </section>
      {side !== "none" && <WorkspacePanel threadId={threadId} panel={side} />}
    </div>
  );
}
