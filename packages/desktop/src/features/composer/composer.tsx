import type { JSX } from "preact";
import { useCallback, useLayoutEffect, useRef, useState } from "preact/hooks";
import { conn, connectionState } from "../../connection/connection.js";
import { openThreadSignal } from "../../state/open-threads.js";
import { reportError, toast } from "../../state/toasts.js";
import { Button, IconButton } from "../../ui/button.js";
import { matches, shortcutLabel, useShortcut } from "../../ui/keys.js";
import "./composer.css";
import { readDraft, saveDraft, type Draft } from "./drafts.js";
import { filesOf, takeImages } from "./images.js";
import { Pickers } from "./pickers.js";
import { QueueList } from "./queue.js";
import { useRunningTurn } from "./running.js";
import { sendMessage, steerMessage, type Outgoing } from "./send.js";
import { findTrigger, useSuggestions, type Suggestion } from "./suggest.js";
import { SuggestionList } from "./suggestion-list.js";

const MAX_HEIGHT_PX = 320;

/** A message taken out of the draft, and how to put it back should the server refuse it. */
type Taken = Outgoing & { restore: () => void };
const ACCEPT = "image/png,image/jpeg,image/gif,image/webp";

/** Where the user writes to a thread: text, images, `@` files and `/` commands; send, queue, steer, interrupt. */
export function Composer({ threadId }: { threadId: string }): JSX.Element {
  const state = openThreadSignal(threadId).value;
  const online = connectionState.value === "open";
  const runningTurn = useRunningTurn(threadId, state);
  const busy = state?.thread.status.type === "active" || runningTurn !== undefined;

  const [draft, setDraft] = useState<Draft>(() => readDraft(threadId));
  const [caret, setCaret] = useState(0);
  const [dismissed, setDismissed] = useState<string | undefined>(undefined);
  const [active, setActive] = useState(0);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const nextCaret = useRef<number | undefined>(undefined);

  /** The one way the draft changes: kept here, and in the drafts store for when this thread opens again. */
  const change = useCallback(
    (next: (d: Draft) => Draft) =>
      setDraft((d) => {
        const updated = next(d);
        saveDraft(threadId, updated);
        return updated;
      }),
    [threadId],
  );

  const trigger = findTrigger(draft.text, caret);
  const triggerKey = trigger ? `${trigger.kind}:${trigger.start}` : undefined;
  const wanted = trigger && triggerKey !== dismissed ? trigger : undefined;
  const suggestions = useSuggestions(threadId, state?.thread.cwd ?? "", wanted);
  const popupOpen = wanted !== undefined && suggestions.length > 0;
  const activeIndex = Math.min(active, suggestions.length - 1);

  // The textarea grows with its text up to a limit, then scrolls.
  useLayoutEffect(() => {
    const el = textarea.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight + 2, MAX_HEIGHT_PX)}px`;
    if (nextCaret.current !== undefined) {
      el.setSelectionRange(nextCaret.current, nextCaret.current);
      setCaret(nextCaret.current);
      nextCaret.current = undefined;
    }
  }, [draft.text]);

  const pick = (s: Suggestion) => {
    if (!trigger) return;
    const text = draft.text.slice(0, trigger.start) + s.insert + draft.text.slice(caret);
    nextCaret.current = trigger.start + s.insert.length;
    change((d) => ({ ...d, text }));
    setActive(0);
  };

  const take = (): Taken | undefined => {
    const text = draft.text.trim();
    if (!text && draft.images.length === 0) return undefined;
    const taken = draft;
    // Cleared at once so the next message can be typed; put back if the server refuses this one.
    change(() => ({ text: "", images: [] }));
    setDismissed(undefined);
    return { threadId, text, images: taken.images.map((i) => i.input), restore: () => change((d) => (d.text || d.images.length ? d : taken)) };
  };

  const send = (steer: boolean) => {
    if (!online) return;
    const message = take();
    if (!message) return;
    const doing = steer && busy ? steerMessage(message, runningTurn) : sendMessage(message, busy);
    doing.then(
      (how) => {
        if (how === "queued" && steer) toast("The turn had ended: the message was queued as a follow-up instead.");
      },
      (error: unknown) => {
        message.restore();
        reportError(error, steer ? "Steering" : "Sending");
      },
    );
  };

  const interrupt = () => {
    if (!online) return;
    // The server drops queued follow-ups on interrupt; their text comes back into the draft.
    const dropped = state?.queue.followUp.map((f) => f.text) ?? [];
    conn()
      .request("turn/interrupt", { threadId })
      .then(
        () => {
          if (dropped.length > 0) change((d) => ({ ...d, text: [d.text, ...dropped].filter(Boolean).join("\n\n") }));
        },
        (error: unknown) => reportError(error, "Interrupting"),
      );
  };

  // Escape interrupts from anywhere nothing else claims it: not a dialog, a request card or another field.
  useShortcut(
    "escape",
    (event) => {
      if (!busy || event.defaultPrevented) return false;
      const target = event.target instanceof Element ? event.target : null;
      const inComposer = !!target && !!form.current?.contains(target);
      if (!inComposer && target?.closest("dialog, [data-request-id], input, select, textarea, [role='listbox']")) return false;
      interrupt();
    },
    busy && online,
  );

  const addFiles = (files: File[]) => {
    if (files.length === 0) return;
    takeImages(files, draft.images.length).then(
      ({ images, refused }) => {
        if (images.length > 0) change((d) => ({ ...d, images: [...d.images, ...images] }));
        if (refused.length > 0) toast(`Not attached: ${refused.join("; ")}.`, "error");
      },
      (error: unknown) => reportError(error, "Reading the image"),
    );
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing) return;
    if (popupOpen) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        setActive((activeIndex + step + suggestions.length) % suggestions.length);
        return;
      }
      const chosen = suggestions[activeIndex]!;
      // Enter on a command already typed in full sends it rather than picking it again.
      const complete = trigger !== undefined && chosen.insert.trimEnd() === draft.text.slice(trigger.start, caret);
      if ((event.key === "Enter" && !event.shiftKey && !complete) || event.key === "Tab") {
        event.preventDefault();
        pick(chosen);
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        setDismissed(triggerKey);
        return;
      }
    }
    if (matches(event, "mod+enter")) {
      event.preventDefault();
      send(true);
    } else if (event.key === "Enter" && !event.shiftKey && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      send(false);
    } else if (event.key === "Escape" && busy) {
      event.preventDefault();
      interrupt();
    }
  };

  const listId = `composer-suggestions-${threadId}`;
  const statusId = `composer-status-${threadId}`;
  const status = !online
    ? "Not connected: your draft is kept, and sending works again once the connection is back."
    : busy
      ? `Working. Enter queues a follow-up, ${shortcutLabel("mod+enter")} steers the running turn, Esc interrupts.`
      : "";

  return (
    <form
      ref={form}
      class="composer"
      aria-label="Composer"
      data-thread={threadId}
      data-busy={busy ? "true" : "false"}
      onSubmit={(e) => {
        e.preventDefault();
        send(false);
      }}
      onDragOver={(e) => {
        if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
      }}
      onDrop={(e) => {
        if (!e.dataTransfer?.types.includes("Files")) return;
        e.preventDefault();
        addFiles(filesOf(e.dataTransfer));
      }}
    >
      {state && <QueueList threadId={threadId} queue={state.queue} />}
      {draft.images.length > 0 && (
        <ul class="composer-images" aria-label="Images to send">
          {draft.images.map((image) => (
            <li key={image.key} class="composer-image">
              <img src={image.preview} alt={image.name} />
              <IconButton icon="close" label={`Remove image ${image.name}`} onClick={() => change((d) => ({ ...d, images: d.images.filter((i) => i.key !== image.key) }))} />
            </li>
          ))}
        </ul>
      )}
      <div class="composer-input">
        {popupOpen && (
          <SuggestionList
            id={listId}
            label={wanted.kind === "file" ? "Files" : "Commands"}
            items={suggestions}
            active={activeIndex}
            onPick={(s) => {
              pick(s);
              textarea.current?.focus();
            }}
          />
        )}
        <textarea
          ref={textarea}
          aria-label="Message"
          aria-describedby={statusId}
          aria-autocomplete="list"
          aria-controls={popupOpen ? listId : undefined}
          aria-activedescendant={popupOpen ? `${listId}-${activeIndex}` : undefined}
          rows={2}
          placeholder={busy ? "Queue a follow-up, or steer…" : "Message, @ for files, / for commands"}
          value={draft.text}
          onInput={(e) => {
            const el = e.currentTarget;
            setCaret(el.selectionStart);
            change((d) => ({ ...d, text: el.value }));
          }}
          onKeyDown={onKeyDown}
          onKeyUp={(e) => setCaret(e.currentTarget.selectionStart)}
          onClick={(e) => setCaret(e.currentTarget.selectionStart)}
          onPaste={(e) => {
            const files = filesOf(e.clipboardData);
            if (files.length === 0) return;
            e.preventDefault();
            addFiles(files);
          }}
        />
      </div>
      <div class="composer-toolbar">
        {state && <Pickers thread={state.thread} disabled={!online} />}
        <div class="composer-actions">
          <input ref={fileInput} type="file" accept={ACCEPT} multiple hidden onChange={(e) => {
            addFiles(Array.from(e.currentTarget.files ?? []));
            e.currentTarget.value = "";
          }} />
          <IconButton icon="image" label="Attach images" onClick={() => fileInput.current?.click()} />
          {busy && (
            <>
              <Button onClick={() => send(true)} disabled={!online} title={`Steer the running turn (${shortcutLabel("mod+enter")})`}>
                Steer
              </Button>
              <Button icon="stop" onClick={interrupt} disabled={!online} title="Interrupt (Esc)">
                Interrupt
              </Button>
            </>
          )}
          <Button variant="primary" type="submit" icon="send" disabled={!online}>
            Send
          </Button>
        </div>
      </div>
      <p id={statusId} class="composer-status" aria-live="polite">
        {status}
      </p>
    </form>
  );
}
