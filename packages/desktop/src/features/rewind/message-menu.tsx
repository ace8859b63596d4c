import type { JSX } from "preact";
import { useRef, useState } from "preact/hooks";
import { FormDialog } from "../../ui/form-dialog.js";
import { MenuButton } from "../../ui/menu-button.js";
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
 * before it, fork from there, or send it again edited. Each opens its
 * dialog; when the dialog closes the focus goes back to the menu's button.
 */
export function MessageMenu({ threadId, turnId, text }: { threadId: string; turnId: string; text: string }): JSX.Element {
  const [dialog, setDialog] = useState<Dialog | undefined>(undefined);
  const button = useRef<HTMLButtonElement>(null);
  const done = () => {
    setDialog(undefined);
    button.current?.focus();
  };
  const items = ITEMS.map((item) => ({ label: item.label, run: () => setDialog(item.dialog) }));
  return (
    <div class="message-menu">
      <MenuButton label="Message actions" listId={`message-menu-${turnId}`} items={items} buttonRef={button} />
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
