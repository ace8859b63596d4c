import { Fragment, type JSX } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { activeThreadId, screen, theme, type ThemeChoice } from "../../state/app-state.js";
import { Button, IconButton } from "../../ui/button.js";
import { Icon } from "../../ui/icons.js";
import { shortcutLabel, useShortcut } from "../../ui/keys.js";
import { defaultFolder, projectName, startThreadIn } from "./actions.js";
import { NewThreadDialog } from "./new-thread.js";
import { failedLastTurn, groupByProject, listState, loadMore, query, rows, showView, unread, view } from "./store.js";
import { SubagentRows } from "./subagent-rows.js";
import { ThreadRow } from "./thread-row.js";
import "./sidebar.css";

export { watchThreadList } from "./store.js";

/** The thread list, grouped by project. */
export function Sidebar(): JSX.Element {
  const [newThreadFolder, setNewThreadFolder] = useState<string | undefined>(undefined);
  const openNewThread = useCallback(() => setNewThreadFolder(defaultFolder()), []);
  // Ctrl+N belongs to the browser (a new window) and never reaches a page.
  useShortcut("mod+shift+o", openNewThread);
  const { loaded } = listState.value;
  // In a narrow window the list folds away while a thread is open, so the conversation keeps the screen.
  const [listOpen, setListOpen] = useState<boolean | undefined>(undefined);
  const current = activeThreadId.value;
  useEffect(() => setListOpen(undefined), [current]);
  const open = listOpen ?? current === undefined;

  return (
    <nav class={`sidebar${open ? " list-open" : ""}`} aria-label="Threads" data-loaded={loaded ? "true" : undefined}>
      <div class="sidebar-top">
        <button type="button" class="sidebar-fold" aria-expanded={open} aria-controls="sidebar-list" onClick={() => setListOpen(!open)}>
          <Icon name={open ? "chevronDown" : "chevronRight"} />
          Threads
        </button>
        <Button
          variant="primary"
          icon="plus"
          class="sidebar-new"
          onClick={openNewThread}
          aria-keyshortcuts="Control+Shift+O Meta+Shift+O"
          title={`New thread (${shortcutLabel("mod+shift+o")})`}
        >
          New thread
        </Button>
        <SearchBox />
        <div class="sidebar-views" role="group" aria-label="Which threads">
          <button type="button" class="view-tab" aria-pressed={view.value === "active"} onClick={() => showView("active")}>
            Threads
          </button>
          <button type="button" class="view-tab" aria-pressed={view.value === "archived"} onClick={() => showView("archived")}>
            Archived
          </button>
        </div>
      </div>
      <ThreadGroups />
      <div class="sidebar-bottom">
        <Button
          variant="ghost"
          icon="settings"
          onClick={() => (screen.value = { kind: "settings" })}
          aria-current={screen.value.kind === "settings" ? "page" : undefined}
        >
          Settings
        </Button>
        <label class="theme-switch">
          <Icon name={theme.value === "dark" ? "moon" : "sun"} />
          <span class="visually-hidden">Theme</span>
          <select value={theme.value} onChange={(e) => (theme.value = e.currentTarget.value as ThemeChoice)}>
            <option value="system">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
      </div>
      {newThreadFolder !== undefined && <NewThreadDialog folder={newThreadFolder} onClose={() => setNewThreadFolder(undefined)} />}
    </nav>
  );
}

/** Typing filters after a short pause, so a fast typist does not redraw the list per key. */
function SearchBox(): JSX.Element {
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState(query.value);
  useEffect(() => {
    const timer = setTimeout(() => (query.value = text), 200);
    return () => clearTimeout(timer);
  }, [text]);
  // Ctrl/Cmd+K is the palette's; the list's own search keeps a shortcut of its own.
  useShortcut("mod+shift+f", () => {
    input.current?.focus();
    input.current?.select();
  });
  return (
    <div class="sidebar-search">
      <Icon name="search" />
      <label for="thread-search" class="visually-hidden">
        Search threads
      </label>
      <input
        ref={input}
        id="thread-search"
        type="search"
        placeholder={`Search (${shortcutLabel("mod+shift+f")})`}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        aria-keyshortcuts="Control+Shift+F Meta+Shift+F"
        onKeyDown={(e) => {
          if (e.key === "Escape" && text) {
            e.preventDefault();
            setText("");
          }
        }}
      />
    </div>
  );
}

function ThreadGroups(): JSX.Element {
  const end = useRef<HTMLDivElement>(null);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const { loaded, loading, nextCursor } = listState.value;
  // The next page loads when the end of the list scrolls into view (whichever box scrolls: the list, or the whole sidebar when narrow).
  // Watched only once the first page is drawn: the list is asked for before the first render, and an
  // end seen in view while the list was still empty must not load a second page at once.
  useEffect(() => {
    if (!loaded) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) void loadMore();
    });
    if (end.current) observer.observe(end.current);
    return () => observer.disconnect();
  }, [loaded]);

  const archived = view.value === "archived";
  const groups = groupByProject(rows.value, query.value);
  const toggle = (cwd: string) => {
    const next = new Set(collapsed);
    if (!next.delete(cwd)) next.add(cwd);
    setCollapsed(next);
  };

  return (
    <div class="sidebar-list" id="sidebar-list" aria-busy={loading ? "true" : undefined}>
      {groups.map(({ cwd, rows: grouped, children }, index) => {
        const open = !collapsed.has(cwd);
        const name = projectName(cwd);
        return (
          <section key={cwd} class="project-group" aria-label={`Project ${name}`}>
            <div class="project-head">
              <h2 class="project-title">
                <button type="button" class="project-toggle" aria-expanded={open} aria-controls={`project-${index}`} title={cwd} onClick={() => toggle(cwd)}>
                  <Icon name={open ? "chevronDown" : "chevronRight"} size={14} />
                  <span class="project-name">{name}</span>
                  <span class="project-count">{grouped.length}</span>
                </button>
              </h2>
              {!archived && <IconButton icon="plus" label={`New thread in ${name}`} onClick={() => startThreadIn(cwd)} />}
            </div>
            <ul id={`project-${index}`} class="thread-rows" hidden={!open}>
              {grouped.map((row) => {
                const under = children.get(row.id);
                return (
                  <Fragment key={row.id}>
                    <ThreadRow
                      row={row}
                      active={row.id === activeThreadId.value}
                      unread={unread.value.has(row.id)}
                      lastTurnFailed={failedLastTurn.value.has(row.id)}
                      archived={archived}
                      now={now}
                    />
                    {under && <SubagentRows parent={row} rows={under} archived={archived} now={now} />}
                  </Fragment>
                );
              })}
            </ul>
          </section>
        );
      })}
      {loaded && groups.length === 0 && (
        <p class="sidebar-empty">{query.value.trim() ? "No thread title matches." : archived ? "No archived threads." : "No threads yet."}</p>
      )}
      <div ref={end} class="sidebar-end">
        {nextCursor !== undefined && (
          <Button variant="ghost" onClick={() => void loadMore()} disabled={loading}>
            {loading ? "Loading…" : "Load more threads"}
          </Button>
        )}
      </div>
    </div>
  );
}
