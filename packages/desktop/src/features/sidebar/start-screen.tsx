import type { JSX } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { connectionState } from "../../connection/connection.js";
import { reportError } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { sendMessage } from "../composer/store.js";
import { projectName, recentProjects, requestComposerFocus, startFolder, startThread } from "./actions.js";
import { ProjectField } from "./project-field.js";
import "../composer/sending.css";
import "./start-screen.css";

/**
 * The first screen, with no thread open: a message box with the focus, and
 * the project it will run in (the folder the server was started in, or a
 * recent one, or one completed from the server's folders). Enter starts
 * the thread there and sends the message.
 */
export function StartScreen(): JSX.Element {
  const [project, setProject] = useState(startFolder);
  const [text, setText] = useState("");
  const [pending, setPending] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const online = connectionState.value === "open";
  const recent = recentProjects();
  const box = useRef<HTMLTextAreaElement>(null);
  // The page opens ready to type; so does coming back here when the last thread goes.
  useLayoutEffect(() => box.current?.focus(), []);

  const send = () => {
    const message = text.trim();
    // A folder taken from the list ends in a slash, so that its own subfolders are offered next.
    const cwd = project.trim().replace(/(?<=.)\/+$/, "");
    if (!online || !message || !cwd || pending !== undefined) return;
    // Shown at once, as sending, while the thread is made; the box is free for what comes next.
    setPending(message);
    setText("");
    setError(undefined);
    startThread(cwd, false).then(
      (threadId) => {
        // Before the thread's screen draws: it shows the message as sending, and its composer takes the focus.
        requestComposerFocus(threadId);
        sendMessage({ threadId, text: message, images: [] }, false).catch((e: unknown) => reportError(e, "Sending"));
      },
      (e: unknown) => {
        setPending(undefined);
        setText((now) => now || message);
        setError(e instanceof Error ? e.message : String(e));
      },
    );
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing || event.key !== "Enter" || event.shiftKey || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    send();
  };

  return (
    <section class="start-screen" aria-labelledby="start-title">
      <h1 id="start-title">KnightCode</h1>
      <p class="start-lead">What shall we work on?</p>
      <form
        class="start-form"
        aria-label="Start a thread"
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <ProjectField value={project} recent={recent} onChange={setProject} />
        {recent.length > 1 && (
          <div class="start-recent" role="group" aria-label="Recent projects">
            {recent.map((cwd) => (
              <button key={cwd} type="button" class="start-chip" title={cwd} aria-pressed={cwd === project.trim()} onClick={() => setProject(cwd)}>
                {projectName(cwd)}
              </button>
            ))}
          </div>
        )}
        {pending !== undefined && (
          <ol class="sending-list" aria-label="Your messages on their way">
            <li class="user-message sending-message" data-sending="sending" aria-busy="true">
              <p class="user-text">{pending}</p>
              <span class="sending-state">Sending…</span>
            </li>
          </ol>
        )}
        <div class="start-box">
          <textarea
            aria-label="Message"
            aria-describedby="start-hint"
            rows={3}
            placeholder="Ask for a change, a review, an explanation…"
            value={text}
            ref={box}
            onInput={(e) => setText(e.currentTarget.value)}
            onKeyDown={onKeyDown}
          />
          <Button variant="primary" type="submit" icon="send" disabled={!online || pending !== undefined}>
            Send
          </Button>
        </div>
        <p id="start-hint" class="field-hint">
          Enter starts a thread in {projectName(project.trim()) || "the project"} and sends; Shift+Enter adds a line.
        </p>
        {error && (
          <p class="form-error" role="alert">
            Could not start the thread: {error}
          </p>
        )}
      </form>
    </section>
  );
}
