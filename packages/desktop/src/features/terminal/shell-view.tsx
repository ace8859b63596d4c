import type { JSX } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { reportError } from "../../state/toasts.js";
import { IconButton } from "../../ui/button.js";
import { closeShell, emulatorOf, type Shell, shellEnd, startShell } from "./shells.js";

function stateOf(shell: Shell): string {
  if (shell.failed) return "did not start";
  if (shell.exited) return shellEnd(shell.exited);
  return shell.processId ? "running" : "starting";
}

/** One interactive terminal: its bar (name, state, close) and its screen, an xterm loaded on demand. */
export function ShellView({ threadId, shell }: { threadId: string; shell: Shell }): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let hide: (() => void) | undefined;
    let gone = false;
    emulatorOf(threadId, shell)
      .then(async (emulator) => {
        if (gone || !host.current) return;
        hide = emulator.show(host.current);
        if (!shell.processId) emulator.focus();
        await startShell(threadId, shell.key, emulator);
      })
      .catch((error: unknown) => reportError(error, "Opening the terminal"));
    return () => {
      gone = true;
      hide?.();
    };
    // The emulator outlives this view (the panel hidden, another thread shown): it is shown again here.
  }, [threadId, shell.key]);
  const state = shell.exited || shell.failed ? "exited" : "running";
  return (
    <li class="terminal-session shell" data-process={shell.processId} data-state={state}>
      <div class="terminal-session-bar">
        <span class="terminal-command">{shell.name}</span>
        <span class="terminal-state">{stateOf(shell)}</span>
        <IconButton icon="close" label={`Close ${shell.name}`} onClick={() => closeShell(threadId, shell.key)} />
      </div>
      <div class="shell-screen" role="region" aria-label={shell.name} ref={host} />
    </li>
  );
}
