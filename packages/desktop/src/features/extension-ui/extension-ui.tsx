import type { ThreadUi } from "@knightcode/app-server-protocol";
import type { JSX } from "preact";
import { conn } from "../../connection/connection.js";
import { openThreadSignal, patchUi } from "../../state/open-threads.js";
import { toast } from "../../state/toasts.js";
import { PendingBadge } from "../requests/requests.js";
import "./extension-ui.css";
import { renderView } from "./view.js";

export { renderView, type ViewContext } from "./view.js";

/** Extension statuses, the working message while a turn runs, and how many requests wait, for the thread header. */
export function ExtensionStatus({ threadId }: { threadId: string }): JSX.Element | null {
  const state = openThreadSignal(threadId).value;
  if (!state) return null;
  const { ui, thread } = state;
  const running = thread.status.type === "active";
  const working = running && ui.workingVisible;
  return (
    <div class="ext-status">
      <PendingBadge threadId={threadId} />
      {ui.statuses.length > 0 && (
        <ul class="ext-statuses" aria-label="Extension status">
          {ui.statuses.map((s) => (
            <li key={s.key} class="ext-status-item" data-status-key={s.key}>
              {s.text}
            </li>
          ))}
        </ul>
      )}
      <span class="ext-working" role="status" aria-live="polite">
        {working ? (ui.workingMessage ?? "Working…") : ""}
      </span>
    </div>
  );
}

/** Extension widgets above or below the composer. */
export function Widgets({ threadId, placement }: { threadId: string; placement: "aboveEditor" | "belowEditor" }): JSX.Element | null {
  const state = openThreadSignal(threadId).value;
  const widgets = state?.ui.widgets.filter((w) => w.placement === placement) ?? [];
  if (widgets.length === 0) return null;
  return (
    <div
      class={`ext-widgets ext-widgets-${placement}`}
      role="region"
      aria-label={placement === "aboveEditor" ? "Extension widgets above the composer" : "Extension widgets below the composer"}
    >
      {widgets.map((w) => (
        <div key={w.key} class="ext-widget" data-widget-key={w.key}>
          {w.view ? renderView(w.view, { threadId, widgetKey: w.key }) : <pre class="ext-widget-lines">{(w.lines ?? []).join("\n")}</pre>}
        </div>
      ))}
    </div>
  );
}

type Widget = ThreadUi["widgets"][number];

/** Keeps extension UI current (ui/state, ui/widget, ui/notify); returns the function that stops it. */
export function watchExtensionUi(): () => void {
  const c = conn();
  const stops = [
    // ui/state carries every field but the widgets, whole: an absent title or message is a cleared one.
    c.on("ui/state", ({ threadId, statuses, title, workingMessage, workingVisible }) =>
      patchUi(threadId, (ui) => ({ statuses, title, workingMessage, workingVisible, widgets: ui.widgets })),
    ),
    // A set widget moves to the end of its placement; one without a placement is removed.
    c.on("ui/widget", ({ threadId, key, placement, lines, view }) =>
      patchUi(threadId, (ui) => {
        const rest = ui.widgets.filter((w) => w.key !== key);
        if (!placement) return { ...ui, widgets: rest };
        const widget: Widget = view ? { key, placement, view } : { key, placement, lines: lines ?? [] };
        return { ...ui, widgets: [...rest, widget] };
      }),
    ),
    c.on("ui/notify", ({ message, level }) => {
      toast(message, level);
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
