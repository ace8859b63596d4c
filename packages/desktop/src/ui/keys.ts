import { useEffect } from "preact/hooks";

/**
 * Keyboard shortcuts as `mod+k`, `mod+shift+d`, `escape`: `mod` is Cmd on a
 * Mac and Ctrl elsewhere. A handler that returns false lets the key through.
 */
export type Shortcut = (event: KeyboardEvent) => boolean | void;

const IS_MAC = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);

export function matches(event: KeyboardEvent, combo: string): boolean {
  const parts = combo.toLowerCase().split("+");
  const key = parts.pop()!;
  const mod = parts.includes("mod");
  const wantMeta = mod && IS_MAC;
  const wantCtrl = (mod && !IS_MAC) || parts.includes("ctrl");
  return (
    event.key.toLowerCase() === key &&
    event.metaKey === wantMeta &&
    event.ctrlKey === wantCtrl &&
    event.shiftKey === parts.includes("shift") &&
    event.altKey === parts.includes("alt")
  );
}

/** Registers a document-wide shortcut while the component is mounted. */
export function useShortcut(combo: string, handler: Shortcut, enabled = true): void {
  useEffect(() => {
    if (!enabled) return;
    const listener = (event: KeyboardEvent) => {
      if (!matches(event, combo)) return;
      if (handler(event) === false) return;
      event.preventDefault();
    };
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, [combo, handler, enabled]);
}

/** How a shortcut reads on this machine, for tooltips and hints. */
export function shortcutLabel(combo: string): string {
  return combo
    .split("+")
    .map((part) =>
      part === "mod"
        ? IS_MAC
          ? "⌘"
          : "Ctrl"
        : part === "shift"
          ? IS_MAC
            ? "⇧"
            : "Shift"
          : part.length === 1
            ? part.toUpperCase()
            : part[0]!.toUpperCase() + part.slice(1),
    )
    .join(IS_MAC ? "" : "+");
}
