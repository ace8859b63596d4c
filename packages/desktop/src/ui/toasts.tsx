import type { JSX } from "preact";
import { dismissToast, toasts } from "../state/toasts.js";
import { IconButton } from "./button.js";

export function Toasts(): JSX.Element {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.value.map((t) => (
        <div key={t.id} class={`toast toast-${t.kind}`} role={t.kind === "error" ? "alert" : undefined}>
          <span class="toast-text">{t.text}</span>
          <IconButton icon="close" label="Dismiss" onClick={() => dismissToast(t.id)} />
        </div>
      ))}
    </div>
  );
}
