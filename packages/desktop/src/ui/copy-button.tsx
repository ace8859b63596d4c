import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { reportError } from "../state/toasts.js";
import { Icon } from "./icons.js";

/** How long the button says "Copied" before it reads "Copy" again. */
const COPIED_MS = 1500;

/**
 * Puts `text` on the clipboard. The button says "Copied" for a moment, and a
 * status line tells a screen reader the same; a refused clipboard is a toast.
 * `compact` keeps only the icon (the label stays as its name and tooltip).
 */
export function CopyButton({ text, label, compact = false }: { text: string; label: string; compact?: boolean }): JSX.Element {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      (error: unknown) => reportError(error, "Copying"),
    );
  };
  return (
    <span class="copy">
      <button type="button" class={compact ? "copy-btn copy-compact" : "copy-btn"} aria-label={label} title={label} onClick={copy}>
        <Icon name={copied ? "check" : "copy"} size={14} />
        {!compact && <span aria-hidden="true">{copied ? "Copied" : "Copy"}</span>}
      </button>
      <span class="visually-hidden" role="status">
        {copied ? "Copied" : ""}
      </span>
    </span>
  );
}
