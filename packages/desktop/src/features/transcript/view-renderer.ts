import type { JSX } from "preact";
import type { View } from "@knightcode/app-server-protocol";

/** Draws an extension's declarative view; the extension-UI feature provides it. */
export type ViewRenderer = (view: View, context: { threadId: string; itemId: string }) => JSX.Element | null;

let renderer: ViewRenderer | undefined;

/**
 * The extension-UI feature calls this once to draw the views of tool calls
 * and extension messages. Until it does, those items show their text only.
 * Returns the function that takes the renderer back out.
 */
export function setViewRenderer(fn: ViewRenderer): () => void {
  renderer = fn;
  return () => {
    if (renderer === fn) renderer = undefined;
  };
}

export function renderView(view: View, context: { threadId: string; itemId: string }): JSX.Element | null {
  return renderer ? renderer(view, context) : null;
}
