import type { JSX } from "preact";
import { useRef, useState } from "preact/hooks";
import type { GitStatusResult } from "@knightcode/app-server-protocol";
import { reportError } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { workspace } from "./store.js";

/**
 * The commit form. Only what is staged goes in unless the user ticks the box,
 * and the message is always one the user saw in the box: the model's draft
 * is written into it for editing, never committed behind the user's back
 * (git/commit without a message would have the model write one and commit
 * at once).
 */
export function CommitBox({
  threadId,
  status,
  disabled,
  onCommit,
}: {
  threadId: string;
  status: GitStatusResult | undefined;
  disabled: boolean;
  onCommit: (message: string, includeUnstaged: boolean) => Promise<boolean>;
}): JSX.Element {
  const [message, setMessageState] = useState("");
  // The box's text as of now, for a draft that arrives after the user typed.
  const current = useRef("");
  const setMessage = (text: string) => {
    current.current = text;
    setMessageState(text);
  };
  const [includeUnstaged, setIncludeUnstaged] = useState(false);
  const [drafting, setDrafting] = useState(false);
  // Why the draft in the box is the plain one from the file list, when the model could not write it.
  const [draftNote, setDraftNote] = useState<string | undefined>(undefined);
  const others = status ? status.unstaged + status.untracked : 0;
  const nothing = !!status && (includeUnstaged ? status.staged + others === 0 : status.staged === 0);

  // A draft fills the box only if the user has not written in it since asking:
  // their own words are never replaced by one that arrives late.
  const draft = async () => {
    setDrafting(true);
    setDraftNote(undefined);
    const asked = current.current;
    try {
      const written = await workspace.draftCommit(threadId, includeUnstaged);
      if (current.current !== asked) return;
      setMessage(written.message);
      setDraftNote(written.note);
      document.getElementById("ws-commit-message")?.focus();
    } catch (error) {
      reportError(error, "Drafting a commit message");
    } finally {
      setDrafting(false);
    }
  };

  return (
    <form
      class="ws-section ws-commit"
      aria-labelledby="ws-commit-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (message.trim())
          void onCommit(message.trim(), includeUnstaged).then((ok) => {
            if (!ok) return;
            setMessage("");
            setDraftNote(undefined);
          });
      }}
    >
      <h3 id="ws-commit-title">Commit</h3>
      <p class="ws-note" id="ws-commit-what">
        {commitScope(status, includeUnstaged)}
      </p>
      <label class="ws-check">
        <input type="checkbox" checked={includeUnstaged} onChange={(e) => setIncludeUnstaged(e.currentTarget.checked)} /> Include unstaged and untracked changes
      </label>
      <div class="field">
        <label for="ws-commit-message">Commit message</label>
        <textarea
          id="ws-commit-message"
          rows={4}
          value={message}
          aria-describedby={draftNote ? "ws-commit-what ws-commit-draft-note" : "ws-commit-what"}
          placeholder="Write a message, or draft one from the change and edit it"
          onInput={(e) => setMessage(e.currentTarget.value)}
        />
      </div>
      <p class="ws-note" id="ws-commit-draft-note" role="status" hidden={!draftNote}>
        {draftNote}
      </p>
      <div class="ws-actions">
        <Button disabled={disabled || drafting || nothing} onClick={() => void draft()}>
          {drafting ? "Drafting…" : "Draft message"}
        </Button>
        <Button type="submit" variant="primary" icon="commit" disabled={disabled || nothing || !message.trim()}>
          {includeUnstaged ? "Commit all changes" : "Commit staged changes"}
        </Button>
      </div>
    </form>
  );
}

/** What a commit would take, in the status's counts. */
function commitScope(status: GitStatusResult | undefined, includeUnstaged: boolean): string {
  if (!status) return "";
  const others = status.unstaged + status.untracked;
  const files = (n: number) => `${n} ${n === 1 ? "file" : "files"}`;
  if (includeUnstaged) return others + status.staged === 0 ? "Nothing to commit." : "Every change is committed: staged, unstaged and untracked.";
  if (status.staged === 0) return "Nothing is staged. Stage files in the Changes panel, or include unstaged changes.";
  return `${files(status.staged)} staged ${status.staged === 1 ? "is" : "are"} committed${others > 0 ? `; ${files(others)} with other changes ${others === 1 ? "stays" : "stay"} out.` : "."}`;
}
