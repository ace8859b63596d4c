import type { ComponentChildren, JSX } from "preact";
import type { Warning } from "@knightcode/app-server-protocol";
import { Button } from "../../ui/button.js";
import type { Loaded } from "./load.js";

/** A labelled on/off switch on a real checkbox, so Space toggles it and forms read it. */
export function Switch({
  id,
  label,
  checked,
  disabled,
  onChange,
  hint,
  mono,
}: {
  id: string;
  label: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (on: boolean) => void;
  hint?: string;
  mono?: boolean;
}): JSX.Element {
  return (
    <label class={`settings-switch${mono ? " settings-mono" : ""}`} for={id}>
      <input
        id={id}
        type="checkbox"
        role="switch"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.currentTarget.checked)}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      <span>{label}</span>
      {hint && (
        <span id={`${id}-hint`} class="visually-hidden">
          {hint}
        </span>
      )}
    </label>
  );
}

/** What a request's answer is while it loads or after it failed; the children once it is there. */
export function LoadGate<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (data: T) => ComponentChildren }): JSX.Element {
  if (loaded.error !== undefined) {
    return (
      <div class="settings-error" role="alert">
        <p>
          Could not read {what}: {loaded.error}
        </p>
        <Button icon="refresh" onClick={loaded.reload}>
          Try again
        </Button>
      </div>
    );
  }
  if (loaded.data === undefined)
    return (
      <p class="settings-note" aria-busy="true">
        Loading {what}…
      </p>
    );
  return <div aria-busy={loaded.loading}>{children(loaded.data)}</div>;
}

/** The warnings an answer carried (files that do not parse, skipped entries). */
export function Warnings({ warnings, title }: { warnings: Warning[]; title: string }): JSX.Element | null {
  if (warnings.length === 0) return null;
  return (
    <div class="settings-warnings" role="status">
      <h3>{title}</h3>
      <ul>
        {warnings.map((w, i) => (
          <li key={i}>
            {w.message}
            {w.path && !w.message.includes(w.path) && (
              <>
                {" "}
                <code>
                  {w.path}
                  {w.line !== undefined ? `:${w.line}${w.column !== undefined ? `:${w.column}` : ""}` : ""}
                </code>
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }): JSX.Element {
  const id = `settings-section-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section class="settings-section" aria-labelledby={id}>
      <div class="settings-section-head">
        <h2 id={id}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** A stable id fragment for a name that may hold any character. */
export function idOf(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);
}
