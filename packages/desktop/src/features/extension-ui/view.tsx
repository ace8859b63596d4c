import type { View, ViewLeaf } from "@knightcode/app-server-protocol";
import type { JSX } from "preact";
import { conn } from "../../connection/connection.js";
import { reportError } from "../../state/toasts.js";
import "./extension-ui.css";

/**
 * Where a view is drawn. A widget's view is live: its controls send
 * `ui/event` naming the widget. A view on a transcript item (no widgetKey)
 * is for display only: its controls show, disabled.
 */
export interface ViewContext {
  threadId: string;
  widgetKey?: string;
}

/** Any node of a view at any depth; the generated types spell each depth out. */
type Node = View | ViewLeaf | { type: "stack"; children: Node[]; direction?: "vertical" | "horizontal" } | { type: "list"; children: Node[] };

function send(ctx: ViewContext, id: string, value?: string | boolean): void {
  if (ctx.widgetKey === undefined) return;
  const params =
    value === undefined ? { threadId: ctx.threadId, widgetKey: ctx.widgetKey, id } : { threadId: ctx.threadId, widgetKey: ctx.widgetKey, id, value };
  conn()
    .request("ui/event", params)
    .catch((error: unknown) => reportError(error, "The extension did not take it"));
}

/** A stable, page-unique id for a control's label. */
function domId(ctx: ViewContext, id: string): string {
  return `view-${(ctx.widgetKey ?? "item").replace(/[^A-Za-z0-9_-]/g, "_")}-${id.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

function renderNode(node: Node, ctx: ViewContext, key: number): JSX.Element {
  const disabled = ctx.widgetKey === undefined;
  switch (node.type) {
    case "text":
      return (
        <p key={key} class="view-text">
          {node.text}
        </p>
      );
    case "button":
      return (
        <button key={key} type="button" class="btn btn-secondary view-button" disabled={disabled} onClick={() => send(ctx, node.id)}>
          {node.label}
        </button>
      );
    case "toggle": {
      const id = domId(ctx, node.id);
      // Keyed by the value: the extension answers by setting the widget again, and the view's value is what shows.
      return (
        <div key={`${key}-${String(node.value)}`} class="view-toggle">
          <input type="checkbox" role="switch" id={id} checked={node.value} disabled={disabled} onChange={(e) => send(ctx, node.id, e.currentTarget.checked)} />
          <label for={id}>{node.label}</label>
        </div>
      );
    }
    case "select": {
      const id = domId(ctx, node.id);
      return (
        <div key={`${key}-${node.value ?? ""}`} class="view-field">
          <label for={id}>{node.label ?? node.id}</label>
          <select id={id} value={node.value ?? ""} disabled={disabled} onChange={(e) => send(ctx, node.id, e.currentTarget.value)}>
            {node.value === undefined && (
              <option value="" disabled>
                Choose…
              </option>
            )}
            {node.options.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </div>
      );
    }
    case "textField": {
      const id = domId(ctx, node.id);
      // Sent on change (Enter or leaving the field), not on every key: each event runs the extension's handlers.
      return (
        <div key={`${key}-${node.value ?? ""}`} class="view-field">
          <label for={id}>{node.label ?? node.placeholder ?? node.id}</label>
          <input
            id={id}
            type="text"
            defaultValue={node.value ?? ""}
            placeholder={node.placeholder}
            disabled={disabled}
            onChange={(e) => send(ctx, node.id, e.currentTarget.value)}
          />
        </div>
      );
    }
    case "stack":
      return (
        <div key={key} class={`view-stack view-${node.direction ?? "vertical"}`}>
          {(node.children as Node[]).map((child, i) => renderNode(child, ctx, i))}
        </div>
      );
    case "list":
      return (
        <ul key={key} class="view-list">
          {(node.children as Node[]).map((child, i) => (
            <li key={i}>{renderNode(child, ctx, 0)}</li>
          ))}
        </ul>
      );
  }
}

/**
 * Draws an extension's declarative view with the page's own controls. For a
 * widget pass its key (controls then send `ui/event`); for a view on a
 * transcript item (toolCall, extensionMessage) pass only the thread.
 */
export function renderView(view: View, ctx: ViewContext): JSX.Element {
  return <div class="ext-view">{renderNode(view as Node, ctx, 0)}</div>;
}
