import { signal } from "@preact/signals";
import type { ComponentChildren, JSX } from "preact";
import { useId, useLayoutEffect, useRef } from "preact/hooks";
import { Button } from "./button.js";

/**
 * A modal on the browser's own <dialog>: focus stays inside, Escape closes
 * it, and focus returns where it was.
 */
export function Modal({
  title,
  onClose,
  children,
  class: className,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  class?: string;
}): JSX.Element {
  const ref = useRef<HTMLDialogElement>(null);
  // Its own: a confirmation asked from inside another modal stacks a second one, whose name must be its own title.
  const titleId = useId();
  // Read while the first render runs, before anything inside can take the focus (an autofocused field, on a busy page, can before the effect runs).
  const before = useRef(document.activeElement as HTMLElement | null);
  // Opened as soon as it is in the page, before the browser takes its next event: an effect waits for a frame,
  // and the keys typed in that frame (Ctrl+K, then the query at once) would land in whatever had the focus behind it.
  useLayoutEffect(() => {
    const dialog = ref.current!;
    dialog.showModal();
    const cancel = (event: Event) => {
      event.preventDefault();
      onClose();
    };
    dialog.addEventListener("cancel", cancel);
    return () => {
      dialog.removeEventListener("cancel", cancel);
      if (dialog.open) dialog.close();
      before.current?.focus();
    };
  }, []);
  return (
    <dialog ref={ref} class={`modal${className ? ` ${className}` : ""}`} aria-labelledby={titleId}>
      <h2 id={titleId} class="modal-title">
        {title}
      </h2>
      {children}
    </dialog>
  );
}

interface ConfirmRequest {
  title: string;
  body: string;
  confirm: string;
  danger: boolean;
  settle: (yes: boolean) => void;
}

const pendingConfirm = signal<ConfirmRequest | undefined>(undefined);

/** Asks the user to confirm an action; resolves false when dismissed. */
export function confirmAction(options: { title: string; body: string; confirm: string; danger?: boolean }): Promise<boolean> {
  pendingConfirm.value?.settle(false);
  return new Promise((resolve) => {
    pendingConfirm.value = {
      title: options.title,
      body: options.body,
      confirm: options.confirm,
      danger: options.danger ?? false,
      settle: (yes) => {
        pendingConfirm.value = undefined;
        resolve(yes);
      },
    };
  });
}

/** Rendered once by the shell. */
export function ConfirmHost(): JSX.Element | null {
  const request = pendingConfirm.value;
  if (!request) return null;
  return (
    <Modal title={request.title} onClose={() => request.settle(false)}>
      <p class="modal-body">{request.body}</p>
      <div class="modal-actions">
        <Button onClick={() => request.settle(false)}>Cancel</Button>
        <Button variant={request.danger ? "danger" : "primary"} onClick={() => request.settle(true)} autofocus>
          {request.confirm}
        </Button>
      </div>
    </Modal>
  );
}
