import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { toast } from "../../state/toasts.js";
import { IconButton } from "../../ui/button.js";
import { FormDialog } from "../../ui/form-dialog.js";
import type { ReviewScopeChoice } from "./model.js";
import { review } from "./store.js";
import "./review.css";

const SCOPES: { value: ReviewScopeChoice; label: string }[] = [
  { value: "uncommitted", label: "Uncommitted changes" },
  { value: "branch", label: "This branch" },
  { value: "lastTurn", label: "The last turn" },
];

/** The server's limit on a focus, in characters. */
const MAX_FOCUS = 4000;

/** The header's "Review changes": a dialog choosing the scope and an optional focus, then a review turn. */
export function ReviewAction({ threadId }: { threadId: string }): JSX.Element {
  const [open, setOpen] = useState(false);
  return (
    <>
      <IconButton icon="check" label="Review changes" onClick={() => setOpen(true)} />
      {open && <ReviewDialog threadId={threadId} onClose={() => setOpen(false)} />}
    </>
  );
}

function ReviewDialog({ threadId, onClose }: { threadId: string; onClose: () => void }): JSX.Element {
  const [scope, setScope] = useState<ReviewScopeChoice>("uncommitted");
  const [focus, setFocus] = useState("");
  const [detached, setDetached] = useState(false);
  const run = async () => {
    const started = await review.start(threadId, scope, focus, detached);
    if (started.threadId !== threadId) toast("The review runs in a new thread under this one", "success");
  };
  return (
    <FormDialog
      title="Review changes"
      onClose={onClose}
      run={run}
      canSubmit={focus.length <= MAX_FOCUS}
      submitLabel="Start review"
      busyLabel="Starting…"
      class="review-dialog"
    >
      <fieldset class="field review-scopes">
        <legend>What to review</legend>
        {SCOPES.map((choice) => (
          <label key={choice.value} class="checkbox-field">
            <input type="radio" name="review-scope" value={choice.value} checked={scope === choice.value} onChange={() => setScope(choice.value)} />
            {choice.label}
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for="review-focus">Focus (optional)</label>
        <textarea id="review-focus" rows={3} maxLength={MAX_FOCUS} value={focus} onInput={(e) => setFocus(e.currentTarget.value)} />
      </div>
      <label class="checkbox-field">
        <input type="checkbox" checked={detached} onChange={(e) => setDetached(e.currentTarget.checked)} />
        Run in a separate thread
      </label>
    </FormDialog>
  );
}
