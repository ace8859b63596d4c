import type { JSX, RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { Icon } from "./icons.js";
import "./menu-button.css";

export interface MenuItem {
  label: string;
  run: () => void;
}

export interface MenuButtonProps {
  /** The button's and the menu's accessible name. */
  label: string;
  /** The menu's element id, unique on the page. */
  listId: string;
  items: readonly MenuItem[];
  /** The button, for a caller that gives the focus back to it (after a dialog an item opened). */
  buttonRef?: RefObject<HTMLButtonElement | null>;
}

/**
 * A menu button with the menu pattern: the button opens a list of items
 * and the focus goes to the first; arrows, Home and End move; Enter runs
 * one; Escape closes and the focus goes back to the button; Tab and a
 * click elsewhere close it. An item runs after the menu closed and the
 * focus went back to the button, so a dialog it opens takes the focus
 * from there.
 */
export function MenuButton({ label, listId, items, buttonRef }: MenuButtonProps): JSX.Element {
  const [open, setOpen] = useState(false);
  const ownButton = useRef<HTMLButtonElement>(null);
  const button = buttonRef ?? ownButton;
  const menu = useRef<HTMLUListElement>(null);

  // Before the browser takes its next event, so a key pressed right after opening reaches the menu.
  useLayoutEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>("[role='menuitem']")?.focus();
    const outside = (event: PointerEvent) => {
      const target = event.target as Node | null;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open]);

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const entries = Array.from(menu.current?.querySelectorAll<HTMLElement>("[role='menuitem']") ?? []);
    const at = entries.indexOf(document.activeElement as HTMLElement);
    const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
    if (step !== 0) entries[(at + step + entries.length) % entries.length]?.focus();
    else if (event.key === "Home") entries[0]?.focus();
    else if (event.key === "End") entries.at(-1)?.focus();
    else if (event.key === "Escape") close(true);
    else if (event.key === "Tab") return close(false);
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  return (
    <div class="menu-button">
      <button
        ref={button}
        type="button"
        class="icon-btn"
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onClick={() => setOpen(!open)}
      >
        <Icon name="menu" />
      </button>
      {open && (
        <ul ref={menu} id={listId} class="menu-list" role="menu" aria-label={label} onKeyDown={onKeyDown}>
          {items.map((item) => (
            <li key={item.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                onClick={() => {
                  close(true);
                  item.run();
                }}
              >
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
