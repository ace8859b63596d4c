import { effect, signal } from "@preact/signals";

/** What fills the main area. The thread screen shows `activeThreadId`. */
export type Screen = { kind: "thread" } | { kind: "settings"; tab?: SettingsTab };

export const SETTINGS_TABS = ["general", "models", "accounts", "mcp", "tools", "resources", "trust"] as const;
export type SettingsTab = (typeof SETTINGS_TABS)[number];

/** The side panel beside a thread: its diffs or its git state. */
export type Panel = "none" | "diff" | "git";

export const screen = signal<Screen>({ kind: "thread" });
export const activeThreadId = signal<string | undefined>(undefined);
export const panel = signal<Panel>("none");
/**
 * What a turn's "N files changed" asks the changes panel to show: the last
 * turn (as the lastTurn scope, with its Undo), or an earlier turn by its id,
 * read-only, with words that say which turn it is.
 */
export interface AskedTurnDiff {
  scope: "lastTurn";
  earlier?: { turnId: string; label: string };
}

/** A scope another part of the page asked the changes panel to show (a turn's "N files changed"); the panel takes it. */
export const askedDiffScope = signal<AskedTurnDiff | undefined>(undefined);

/** Opens the changes panel on the thread's last turn with changes. */
export function showLastTurnChanges(): void {
  askedDiffScope.value = { scope: "lastTurn" };
  panel.value = "diff";
}

/** Opens the changes panel on an earlier turn's changes, read-only; `label` names the turn (its message). */
export function showEarlierTurnChanges(turnId: string, label: string): void {
  askedDiffScope.value = { scope: "lastTurn", earlier: { turnId, label } };
  panel.value = "diff";
}

export type ThemeChoice = "system" | "light" | "dark";
const THEME_KEY = "knightcode.theme";
export const theme = signal<ThemeChoice>(readTheme());

function readTheme(): ThemeChoice {
  const saved = typeof localStorage === "undefined" ? null : localStorage.getItem(THEME_KEY);
  return saved === "light" || saved === "dark" ? saved : "system";
}

/**
 * Applies the theme to the document and remembers the choice. "system"
 * follows the operating system's setting, live, so the stylesheet has one
 * dark palette, keyed on `data-theme`, instead of a second copy in a media query.
 */
export function watchTheme(): () => void {
  const media = matchMedia("(prefers-color-scheme: dark)");
  const apply = () => {
    const choice = theme.value;
    document.documentElement.dataset.theme = choice === "system" ? (media.matches ? "dark" : "light") : choice;
    if (choice === "system") localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, choice);
  };
  const stop = effect(apply);
  media.addEventListener("change", apply);
  return () => {
    stop();
    media.removeEventListener("change", apply);
  };
}

/**
 * Keeps the open thread in the address (`?thread=<id>`), so a reload or a
 * copied address comes back to it; the page starts on the one it names.
 */
export function watchAddress(): () => void {
  const named = new URLSearchParams(location.search).get("thread");
  if (named) activeThreadId.value = named;
  // `?settings=<tab>` opens (and keeps) the settings screen on that tab.
  const settingsTab = new URLSearchParams(location.search).get("settings");
  if (settingsTab !== null)
    screen.value = { kind: "settings", tab: (SETTINGS_TABS as readonly string[]).includes(settingsTab) ? (settingsTab as SettingsTab) : "general" };
  return effect(() => {
    const id = activeThreadId.value;
    const current = screen.value;
    const url = new URL(location.href);
    if (id) url.searchParams.set("thread", id);
    else url.searchParams.delete("thread");
    if (current.kind === "settings") url.searchParams.set("settings", current.tab ?? "general");
    else url.searchParams.delete("settings");
    if (url.href !== location.href) history.replaceState(null, "", url.pathname + url.search);
  });
}

export function openThread(threadId: string): void {
  activeThreadId.value = threadId;
  screen.value = { kind: "thread" };
}
