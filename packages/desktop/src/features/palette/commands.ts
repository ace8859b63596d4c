import { activeThreadId, openThread, screen, theme } from "../../state/app-state.js";
import { archiveThread, forkThread, projectName, requestComposerFocus, titleOf } from "../sidebar/actions.js";
import { rows } from "../sidebar/store.js";

/** One line of the palette: what it says, what kind of thing it is, and what Enter does. */
export interface Entry {
  id: string;
  kind: "command" | "thread";
  label: string;
  /** Shown after the label, dimmer: a thread's project, a command's shortcut. */
  detail?: string;
  run: () => void;
}

/** The first screen: a new thread starts from its message box, which takes the focus. */
function newThread(): void {
  activeThreadId.value = undefined;
  screen.value = { kind: "thread" };
}

/** Light when dark is showing, dark otherwise: what the eye sees now decides, whatever "system" resolved to. */
function toggleTheme(): void {
  theme.value = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
}

/** The commands that apply now: the open thread's own only while one is open. */
export function commands(): Entry[] {
  const open = activeThreadId.value;
  const list: Entry[] = [
    { id: "new-thread", kind: "command", label: "New thread", run: newThread },
    { id: "settings", kind: "command", label: "Open settings", run: () => (screen.value = { kind: "settings" }) },
    { id: "theme", kind: "command", label: "Toggle theme", detail: "light / dark", run: toggleTheme },
  ];
  if (open && screen.value.kind === "thread") {
    const row = rows.value.find((r) => r.id === open);
    list.push({ id: "fork", kind: "command", label: "Fork current thread", run: () => void forkThread(open) });
    if (row) list.push({ id: "archive", kind: "command", label: "Archive current thread", run: () => void archiveThread(row) });
  }
  return list;
}

/** The threads the sidebar has loaded, newest first. */
export function threads(): Entry[] {
  return rows.value.map((row) => ({
    id: `thread-${row.id}`,
    kind: "thread",
    label: titleOf(row),
    detail: projectName(row.cwd),
    run: () => {
      requestComposerFocus(row.id);
      openThread(row.id);
    },
  }));
}

/** Every word of the query somewhere in the label or detail, ignoring case. */
export function filterEntries(entries: readonly Entry[], query: string): Entry[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return entries.slice();
  return entries.filter((entry) => {
    const text = `${entry.label} ${entry.detail ?? ""}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}
