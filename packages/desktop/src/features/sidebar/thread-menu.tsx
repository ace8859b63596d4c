import type { ThreadSummary } from "@knightcode/app-server-protocol";
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { FormDialog } from "../../ui/form-dialog.js";
import { Icon } from "../../ui/icons.js";
import { archiveThread, forkThread, renameThread } from "./actions.js";
import { rows } from "./store.js";

interface MenuItem {
  label: string;
  run: () => void;
}

/**
 * The open thread's menu: rename, fork, archive. A menu button with the
 * menu pattern: arrows move, Enter runs, Escape closes and the focus goes
 * back to the button.
 */
export function ThreadMenu({ threadId, title }: { threadId: string; title: string }): JSX.Element {
  const [open, setOpen] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const items: MenuItem[] = [
    { label: "Rename…", run: () => setRenaming(true) },
    { label: "Fork", run: () => void forkThread(threadId) },
    { label: "Archive…", run: () => void archiveThread(summaryOf(threadId, title)) },
  ];

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>("[role='menuitem']")?.focus();
    // A click anywhere else closes it.
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
    else if (event.key === "Tab") close(false);
    else return;
    if (event.key !== "Tab") {
      event.preventDefault();
      event.stopPropagation();
    }
  };

  return (
    <div class="thread-menu">
      <button
        ref={button}
        type="button"
        class="icon-btn"
        aria-label="Thread actions"
        title="Thread actions"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? "thread-menu-list" : undefined}
        onClick={() => setOpen(!open)}
      >
        <Icon name="menu" />
      </button>
      {open && (
        <ul ref={menu} id="thread-menu-list" class="thread-menu-list" role="menu" aria-label="Thread actions" onKeyDown={onKeyDown}>
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
      {renaming && <RenameDialog threadId={threadId} title={title} onClose={() => setRenaming(false)} />}
    </div>
  );
}

/** The sidebar's row for the thread, or one made from what the header knows (an open thread older than the loaded pages). */
function summaryOf(threadId: string, title: string): ThreadSummary {
  return rows.peek().find((row) => row.id === threadId) ?? ({ id: threadId, title } as ThreadSummary);
}

function RenameDialog({ threadId, title, onClose }: { threadId: string; title: string; onClose: () => void }): JSX.Element {
  const [name, setName] = useState(title);
  return (
    <FormDialog
      title="Rename thread"
      onClose={onClose}
      run={() => renameThread(threadId, name.trim())}
      canSubmit={!!name.trim()}
      submitLabel="Rename"
      busyLabel="Renaming…"
    >
      <div class="field">
        <label for="rename-thread-name">Name</label>
        <input id="rename-thread-name" type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} required autocomplete="off" autofocus />
      </div>
    </FormDialog>
  );
}
