import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { reportError } from "../../state/toasts.js";
import { Button, IconButton } from "../../ui/button.js";
import { closeSession, openPanels, outputOf, sessionsOf, setPanelOpen, terminate, type TerminalSession } from "./model.js";
import { ShellView } from "./shell-view.js";
import { findShells, newShell, shellsOf } from "./shells.js";
import "./terminal.css";

/** A command's ending, in words. */
function endOf(session: TerminalSession): string {
  const end = session.exited;
  if (!end) return "running";
  if (end.unheard) return "ended while the page was away";
  const how = end.exitCode !== null ? `exited ${end.exitCode}` : `ended by ${end.signal ?? "a signal"}`;
  return end.truncated ? `${how}, output cut at the limit` : how;
}

/** The panel under a thread's conversation that shows the `!` commands the user ran, with their output. */
export function TerminalPanel({ threadId }: { threadId: string }): JSX.Element | null {
  const list = sessionsOf(threadId).value;
  const shells = shellsOf(threadId).value;
  const open = openPanels.value.has(threadId);
  useEffect(() => {
    if (open) findShells(threadId).catch((error: unknown) => reportError(error, "Looking for the thread's terminals"));
  }, [open, threadId]);
  if (!open) return null;
  return (
    <section class="terminal-panel" aria-label="Commands">
      <header class="terminal-panel-header">
        <h2>Commands</h2>
        <Button variant="ghost" icon="plus" onClick={() => newShell(threadId)}>
          New terminal
        </Button>
        <IconButton icon="close" label="Close the commands panel" onClick={() => setPanelOpen(threadId, false)} />
      </header>
      {list.length === 0 && shells.length === 0 && (
        <p class="terminal-empty">Start a message with ! to run it in the thread's folder (!ls), or open a terminal.</p>
      )}
      <ul class="terminal-sessions">
        {shells.map((shell) => (
          <ShellView key={shell.key} threadId={threadId} shell={shell} />
        ))}
        {list.map((session) => (
          <CommandView key={session.processId} threadId={threadId} session={session} />
        ))}
      </ul>
    </section>
  );
}

function CommandView({ threadId, session }: { threadId: string; session: TerminalSession }): JSX.Element {
  const running = !session.exited;
  const text = outputOf(session.processId).value;
  return (
    <li class="terminal-session" data-process={session.processId} data-state={running ? "running" : "exited"}>
      <div class="terminal-session-bar">
        <code class="terminal-command">!{session.command}</code>
        <span class="terminal-state">{endOf(session)}</span>
        {running ? (
          <Button
            variant="ghost"
            icon="stop"
            onClick={() => terminate(threadId, session.processId).catch((error: unknown) => reportError(error, "Stopping the command"))}
          >
            Stop
          </Button>
        ) : (
          <IconButton icon="close" label={`Remove !${session.command}`} onClick={() => closeSession(threadId, session.processId)} />
        )}
      </div>
      {/* A region a keyboard user can scroll (so it takes the focus); its name says whose output it is. */}
      <pre class="terminal-output" tabIndex={0} role="region" aria-label={`Output of !${session.command}`}>
        {text}
      </pre>
    </li>
  );
}
