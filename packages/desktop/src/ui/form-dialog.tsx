import type { ComponentChildren, JSX } from "preact";
import { useState } from "preact/hooks";
import { Button } from "./button.js";
import { Modal } from "./modal.js";

/**
 * A modal holding a form that runs one action: busy while it runs, closed
 * once it succeeds, and the server's refusal shown in the dialog when it fails.
 */
export function FormDialog({
  title,
  onClose,
  run,
  canSubmit,
  submitLabel,
  busyLabel,
  children,
  class: className,
}: {
  title: string;
  onClose: () => void;
  run: () => Promise<unknown>;
  /** Whether the fields hold enough to submit. */
  canSubmit: boolean;
  submitLabel: string;
  busyLabel: string;
  children: ComponentChildren;
  class?: string;
}): JSX.Element {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    run().then(onClose, (e: unknown) => {
      setBusy(false);
      setError(e instanceof Error ? e.message : String(e));
    });
  };
  return (
    <Modal title={title} onClose={onClose} class={className}>
      <form onSubmit={submit}>
        {children}
        {error && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        <div class="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={busy || !canSubmit}>
            {busy ? busyLabel : submitLabel}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
