import type { JSX } from "preact";
import { useCallback, useRef, useState } from "preact/hooks";
import { connectionState } from "../../connection/connection.js";
import { openThreadSignal } from "../../state/open-threads.js";
import { reportError, toast } from "../../state/toasts.js";
import { Button, IconButton } from "../../ui/button.js";
import { shortcutLabel, useShortcut } from "../../ui/keys.js";
import "./composer.css";
import { readDraft, saveDraft, type Draft } from "./drafts.js";
import { ImageStrip } from "./image-strip.js";
import { filesOf, takeImages } from "./images.js";
import { MessageBox } from "./message-box.js";
import { Pickers } from "./pickers.js";
import { QueueList } from "./queue.js";
import { useRunningTurn } from "./running.js";
import { composer, sendMessage, steerMessage } from "./store.js";
import { pendingReviewComments } from "../workspace/panel.js";
import { runCommand } from "../terminal/model.js";

const ACCEPT = "image/png,image/jpeg,image/gif,image/webp";

/** The draft of one thread: kept here, and in the drafts store for when the thread opens again. */
function useDraft(threadId: string): [Draft, (next: (d: Draft) => Draft) => void] {
  const [draft, setDraft] = useState<Draft>(() => readDraft(threadId));
  const change = useCallback(
    (next: (d: Draft) => Draft) =>
      setDraft((d) => {
        const updated = next(d);
        saveDraft(threadId, updated);
        return updated;
      }),
    [threadId],
  );
  return [draft, change];
}

/** Where the user writes to a thread: text, images, `@` files and `/` commands; send, queue, steer, interrupt. */
export function Composer({ threadId }: { threadId: string }): JSX.Element {
  const state = openThreadSignal(threadId).value;
  const online = connectionState.value === "open";
  const runningTurn = useRunningTurn(threadId, state);
  const busy = state?.thread.status.type === "active" || runningTurn !== undefined;
  const [draft, change] = useDraft(threadId);
  const form = useRef<HTMLFormElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const send = (steer: boolean) => {
    const text = draft.text.trim();
    if (!online || (!text && draft.images.length === 0)) return;
    if (text.startsWith("!") && draft.images.length === 0) return runShellLine(text);
    const taken = draft;
    // Cleared at once so the next message can be typed; put back if the server refuses this one.
    change(() => ({ text: "", images: [] }));
    const message = { threadId, text, images: taken.images.map((i) => i.input) };
    (steer && busy ? steerMessage(message, runningTurn) : sendMessage(message, busy)).then(
      (how) => {
        if (how === "queued" && steer) toast("The turn had ended: the message was queued as a follow-up instead.");
      },
      (error: unknown) => {
        change((d) => (d.text || d.images.length ? d : taken));
        reportError(error, steer ? "Steering" : "Sending");
      },
    );
  };

  // `!ls`: the user's own command, run in the thread's folder and shown in the commands panel; the model never sees it.
  const runShellLine = (text: string) => {
    const command = text.slice(1).trim();
    if (!command) return;
    change(() => ({ text: "", images: [] }));
    runCommand(threadId, command).catch((error: unknown) => {
      change((d) => (d.text ? d : { text, images: [] }));
      reportError(error, "Running the command");
    });
  };

  const interrupt = () => {
    if (!online) return;
    // The server drops queued follow-ups on interrupt; their text comes back into the draft.
    const dropped = state?.queue.followUp.map((f) => f.text) ?? [];
    composer.interrupt(threadId).then(
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
      const target = event.target instanceof Element ? event.target : null;
      const inComposer = !!target && !!form.current?.contains(target);
      if (event.defaultPrevented || (!inComposer && target?.closest("dialog, [data-request-id], input, select, textarea, [role='listbox']"))) return false;
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
      {state && (
        <QueueList threadId={threadId} queue={state.queue} onEdit={(text) => change((d) => ({ ...d, text: d.text ? `${d.text}\n\n${text}` : text }))} />
      )}
      <PendingComments threadId={threadId} />
      <ImageStrip images={draft.images} onRemove={(key) => change((d) => ({ ...d, images: d.images.filter((i) => i.key !== key) }))} />
      <MessageBox
        threadId={threadId}
        cwd={state?.thread.cwd ?? ""}
        text={draft.text}
        onText={(text) => change((d) => ({ ...d, text }))}
        onSend={send}
        onEscape={() => {
          if (busy) interrupt();
          return busy;
        }}
        onFiles={addFiles}
        describedBy={statusId}
        placeholder={busy ? "Queue a follow-up, or steer…" : "Message, @ for files, / for commands"}
      />
      <div class="composer-toolbar">
        {state && <Pickers thread={state.thread} disabled={!online} />}
        <div class="composer-actions">
          <input
            ref={fileInput}
            type="file"
            accept={ACCEPT}
            multiple
            hidden
            onChange={(e) => {
              addFiles(Array.from(e.currentTarget.files ?? []));
              e.currentTarget.value = "";
            }}
          />
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

/** Says that review comments from the diff view go with the next message; they are listed, and removable, there. */
function PendingComments({ threadId }: { threadId: string }): JSX.Element | null {
  const count = pendingReviewComments(threadId).value.length;
  if (count === 0) return null;
  return (
    <p class="composer-comments" role="status">
      {count === 1 ? "1 review comment goes" : `${count} review comments go`} with this message.
    </p>
  );
}
