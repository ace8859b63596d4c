import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { FormDialog } from "../../ui/form-dialog.js";
import { Icon } from "../../ui/icons.js";
import { editAndResend, forkFrom, rewindTo, type ResendTo, type RewindMode } from "./actions.js";
import "./rewind.css";

type Dialog = "rewind" | "fork" | "edit";

const ITEMS: { dialog: Dialog; label: string }[] = [
  { dialog: "rewind", label: "Rewind to here…" },
  { dialog: "fork", label: "Fork from here…" },
  { dialog: "edit", label: "Edit and resend…" },
];

/**
 * The menu of the message that started a turn: rewind the thread to just
 * before it, fork from there, or send it again edited. A menu button with
 * the menu pattern: arrows move, Enter runs, Escape closes and the focus
 * goes back to the button.
 */
export function MessageMenu({ threadId, turnId, text }: { threadId: string; turnId: string; text: string }): JSX.Element {
  const [open, setOpen] = useState(false);
  const [dialog, setDialog] = useState<Dialog | undefined>(undefined);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const listId = `message-menu-${turnId}`;

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>("[role='menuitem']")?.focus();
    const outside = (event: PointerEvent) => {
      const target = event.target as Node | null;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open]);

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const entries = Array.from(menu.current?.querySelectorAll<HTMLElement>("[role='menuitem']") ?? []);
    const at = entries.indexOf(document.activeElement as HTMLElement);
    const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
    if (step !== 0) entries[(at + step + entries.length) % entries.length]?.focus();
    else if (event.key === "Escape") close(true);
    else if (event.key === "Tab") return close(false);
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  const done = () => {
    setDialog(undefined);
    button.current?.focus();
  };

  return (
    <div class="message-menu">
      <button
        ref={button}
        type="button"
        class="icon-btn"
        aria-label="Message actions"
        title="Message actions"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onClick={() => setOpen(!open)}
      >
        <Icon name="menu" />
      </button>
      {open && (
        <ul ref={menu} id={listId} class="message-menu-list" role="menu" aria-label="Message actions" onKeyDown={onKeyDown}>
          {ITEMS.map((item) => (
            <li key={item.dialog} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                onClick={() => {
                  setOpen(false);
                  setDialog(item.dialog);
                }}
              >
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      )}
      {dialog === "rewind" && <RewindDialog threadId={threadId} turnId={turnId} onClose={done} />}
      {dialog === "fork" && <ForkDialog threadId={threadId} turnId={turnId} onClose={done} />}
      {dialog === "edit" && <EditDialog threadId={threadId} turnId={turnId} text={text} onClose={done} />}
    </div>
  );
}

interface DialogProps {
  threadId: string;
  turnId: string;
  onClose: () => void;
}

/** A group of radio buttons, one per choice. */
function Choices<T extends string>(props: { legend: string; name: string; value: T; choices: [T, string][]; onChange: (value: T) => void }): JSX.Element {
  return (
    <fieldset class="rewind-choices">
      <legend>{props.legend}</legend>
      {props.choices.map(([value, label]) => (
        <label key={value}>
          <input type="radio" name={props.name} value={value} checked={props.value === value} onChange={() => props.onChange(value)} /> {label}
        </label>
      ))}
    </fieldset>
  );
}

function RewindDialog({ threadId, turnId, onClose }: DialogProps): JSX.Element {
  const [mode, setMode] = useState<RewindMode>("both");
  return (
    <FormDialog title="Rewind to here" onClose={onClose} run={() => rewindTo(threadId, turnId, mode)} canSubmit submitLabel="Rewind" busyLabel="Rewinding…">
      <p>This message and everything after it are undone. The conversation's old branch is kept.</p>
      <Choices
        legend="What goes back"
        name="rewind-mode"
        value={mode}
        onChange={setMode}
        choices={[
          ["both", "Conversation and code"],
          ["conversation", "Conversation only"],
          ["code", "Code only"],
        ]}
      />
    </FormDialog>
  );
}

function ForkDialog({ threadId, turnId, onClose }: DialogProps): JSX.Element {
  const [worktree, setWorktree] = useState(false);
  return (
    <FormDialog title="Fork from here" onClose={onClose} run={() => forkFrom(threadId, turnId, worktree)} canSubmit submitLabel="Fork" busyLabel="Forking…">
      <p>A new thread with the conversation up to just before this message.</p>
      <label class="rewind-check">
        <input type="checkbox" checked={worktree} onChange={(e) => setWorktree(e.currentTarget.checked)} /> In a new worktree, with the code as it was here
      </label>
    </FormDialog>
  );
}

function EditDialog({ threadId, turnId, text: original, onClose }: DialogProps & { text: string }): JSX.Element {
  const [text, setText] = useState(original);
  const [to, setTo] = useState<ResendTo>("both");
  return (
    <FormDialog
      title="Edit and resend"
      onClose={onClose}
      run={() => editAndResend(threadId, turnId, text.trim(), to)}
      canSubmit={!!text.trim()}
      submitLabel="Send"
      busyLabel="Sending…"
    >
      <div class="field">
        <label for={`edit-message-${turnId}`}>Message</label>
        <textarea id={`edit-message-${turnId}`} rows={5} value={text} onInput={(e) => setText(e.currentTarget.value)} required autofocus />
      </div>
      <Choices
        legend="Send it"
        name="resend-to"
        value={to}
        onChange={setTo}
        choices={[
          ["both", "Here, rewinding the conversation and the code"],
          ["conversation", "Here, rewinding the conversation only"],
          ["fork", "In a new thread forked from here"],
        ]}
      />
    </FormDialog>
  );
}
