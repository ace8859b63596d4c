import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { FormDialog } from "../../ui/form-dialog.js";
import { startThread } from "./actions.js";

/** Asks where the new thread runs; the server's refusal (no such folder, not a git repository) shows in the dialog. */
export function NewThreadDialog({ folder, onClose }: { folder: string; onClose: () => void }): JSX.Element {
  const [cwd, setCwd] = useState(folder);
  const [worktree, setWorktree] = useState(false);
  return (
    <FormDialog
      title="New thread"
      onClose={onClose}
      class="new-thread-dialog"
      run={() => startThread(cwd.trim(), worktree)}
      canSubmit={!!cwd.trim()}
      submitLabel="Start thread"
      busyLabel="Starting…"
    >
      <div class="field">
        <label for="new-thread-folder">Project folder</label>
        <input
          id="new-thread-folder"
          type="text"
          value={cwd}
          onInput={(e) => setCwd(e.currentTarget.value)}
          required
          spellcheck={false}
          autocomplete="off"
          autofocus
        />
      </div>
      <label class="checkbox-field">
        <input type="checkbox" checked={worktree} aria-describedby="new-thread-worktree-hint" onChange={(e) => setWorktree(e.currentTarget.checked)} />
        Run in a new worktree
      </label>
      <p id="new-thread-worktree-hint" class="field-hint">
        A worktree is a git checkout of the thread's own, made from the folder's current commit; your checkout stays as it is.
      </p>
    </FormDialog>
  );
}
