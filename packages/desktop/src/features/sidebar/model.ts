import { effect, signal, type ReadonlySignal, type Signal } from "@preact/signals";
import { ClientError } from "@knightcode/app-server-client/browser";
import type { ClientRequestResult, Thread, ThreadSummary } from "@knightcode/app-server-protocol";
import type { Connection } from "../../connection/connection.js";
import type { UnreadMarks } from "./unread.js";

/**
 * The sidebar's model: the owner of the thread rows, the requests that page
 * them in and the notifications that patch them. Components read its
 * signals and call its actions; it reaches the server only through the
 * connection it is given, so a test hands it a client over the in-memory
 * transport.
 */
export type ListView = "active" | "archived";

/** What the model needs of a connection: the page's `Connection`, or a test's in-process client. */
export type SidebarConnection = Pick<Connection, "request" | "on" | "onReconnect">;

export interface SidebarDeps {
  /** Asked at each use: the page's connection is set after the model is made. */
  conn: () => SidebarConnection;
  /** The thread the page shows: its row never carries the unread mark, and is always listed. */
  activeThreadId: ReadonlySignal<string | undefined>;
  unread: UnreadMarks;
  /** Tells the user a request failed. */
  reportError: (error: unknown, doing: string) => void;
}

/** Small enough that the first screen draws fast with thousands of threads; more load as the list scrolls. */
export const PAGE_SIZE = 25;

export type ListState = { loaded: boolean; loading: boolean; nextCursor?: string; search?: string };

export interface SidebarModel {
  rows: Signal<ThreadSummary[]>;
  view: ReadonlySignal<ListView>;
  /** The search as applied (debounced by the search box); matches titles. */
  query: Signal<string>;
  /** `search` is the one the loaded pages were asked with: their cursor only pages that search. */
  listState: ReadonlySignal<ListState>;
  /** Threads whose last turn, as this page saw it complete, failed. */
  failedLastTurn: ReadonlySignal<ReadonlySet<string>>;
  reload(): Promise<void>;
  loadMore(): Promise<void>;
  showView(next: ListView): void;
  /** Installs the notification handlers and loads the first page; returns the function that stops it all. */
  watch(): () => void;
  /** The thread requests the list offers; each rejects with the server's error, and the rows follow their notifications. */
  start(cwd: string, worktree: boolean): Promise<ClientRequestResult<"thread/start">>;
  rename(threadId: string, name: string): Promise<void>;
  fork(threadId: string): Promise<ClientRequestResult<"thread/fork">>;
  archive(threadId: string): Promise<void>;
  unarchive(threadId: string): Promise<void>;
  remove(threadId: string): Promise<void>;
  /** The subfolders of a folder (directory/list), for completing a project path. */
  listFolders(path: string, limit: number): Promise<ClientRequestResult<"directory/list">>;
}

export function createSidebarModel(deps: SidebarDeps): SidebarModel {
  const rows = signal<ThreadSummary[]>([]);
  const view = signal<ListView>("active");
  const query = signal("");
  const listState = signal<ListState>({ loaded: false, loading: false });
  const failedLastTurn = signal<ReadonlySet<string>>(new Set());
  /** Bumped by each first-page load, so an answer to an older one is dropped. */
  let epoch = 0;
  /** Live events that arrive while a first page is on its way wait here and apply after it, so the page's older snapshot cannot undo them. */
  let buffered: Array<() => void> | undefined;

  /** The search as thread/list takes it: the server matches titles, so a search reads only the pages of what matches. */
  function searchParam(): string | undefined {
    const text = query.value.trim().slice(0, 200);
    return text === "" ? undefined : text;
  }

  function listParams(search: string | undefined, cursor?: string) {
    return {
      ...(cursor === undefined ? {} : { cursor }),
      limit: PAGE_SIZE,
      ...(view.value === "archived" ? { archived: true } : {}),
      ...(search === undefined ? {} : { search }),
    };
  }

  async function reload(): Promise<void> {
    const mine = ++epoch;
    buffered = [];
    const search = searchParam();
    listState.value = { ...listState.value, loading: true };
    try {
      const page = await deps.conn().request("thread/list", listParams(search));
      if (mine !== epoch) return;
      rows.value = page.threads;
      listState.value = { loaded: true, loading: false, nextCursor: page.nextCursor, ...(search === undefined ? {} : { search }) };
      // The search changed while this page was on its way.
      if (searchParam() !== search) void reload();
    } catch (error) {
      if (mine !== epoch) return;
      listState.value = { ...listState.value, loaded: true, loading: false };
      report(error, "Could not list the threads");
    } finally {
      if (mine === epoch) {
        const waiting = buffered ?? [];
        buffered = undefined;
        for (const apply of waiting) apply();
      }
    }
  }

  async function loadMore(): Promise<void> {
    const { loading, nextCursor, search } = listState.value;
    if (loading || nextCursor === undefined) return;
    const mine = epoch;
    listState.value = { ...listState.value, loading: true };
    try {
      const page = await deps.conn().request("thread/list", listParams(search, nextCursor));
      if (mine !== epoch) return;
      const known = new Set(rows.value.map((row) => row.id));
      rows.value = [...rows.value, ...page.threads.filter((row) => !known.has(row.id))];
      listState.value = { loaded: true, loading: false, nextCursor: page.nextCursor, ...(search === undefined ? {} : { search }) };
    } catch (error) {
      if (mine !== epoch) return;
      listState.value = { ...listState.value, loading: false };
      report(error, "Could not list more threads");
    }
  }

  function showView(next: ListView): void {
    if (view.value === next) return;
    view.value = next;
    rows.value = [];
    listState.value = { loaded: false, loading: false };
    void reload();
  }

  /** A request cut off by the server going away is not worth a toast: the banner says so, and the reconnection reloads the list. */
  function report(error: unknown, doing: string): void {
    if (error instanceof ClientError && error.kind === "closed") return;
    deps.reportError(error, doing);
  }

  function live(apply: () => void): void {
    if (buffered) buffered.push(apply);
    else apply();
  }

  function patch(threadId: string, change: (row: ThreadSummary) => ThreadSummary): boolean {
    const index = rows.value.findIndex((row) => row.id === threadId);
    if (index < 0) return false;
    const next = rows.value.slice();
    next[index] = change(next[index]!);
    rows.value = next;
    return true;
  }

  function remove(threadId: string): void {
    if (rows.value.some((row) => row.id === threadId)) rows.value = rows.value.filter((row) => row.id !== threadId);
  }

  /** Puts a row where `thread/list` would: newest first. */
  function place(summary: ThreadSummary): void {
    const others = rows.value.filter((row) => row.id !== summary.id);
    const at = others.findIndex((row) => row.updatedAt < summary.updatedAt);
    others.splice(at < 0 ? others.length : at, 0, summary);
    rows.value = others;
  }

  /** Fetches a thread's summary for a row this page does not have yet; `thread/read` loads nothing. */
  function fetchAndPlace(threadId: string, wanted: ListView): void {
    deps
      .conn()
      .request("thread/read", { threadId })
      .then(({ thread }) => {
        if (view.value === wanted && thread.archived === (wanted === "archived")) live(() => place(thread));
      })
      .catch((error: unknown) => report(error, "Could not show a thread in the list"));
  }

  function turnCompleted(threadId: string, failedTurn: boolean, completedAt: number | undefined): void {
    const failed = new Set(failedLastTurn.value);
    if (failedTurn) failed.add(threadId);
    else failed.delete(threadId);
    failedLastTurn.value = failed;
    if (threadId !== deps.activeThreadId.value) deps.unread.mark(threadId);
    const row = rows.value.find((r) => r.id === threadId);
    if (!row?.title) {
      // A first turn names an unnamed thread; its summary says how.
      if (view.value === "active") fetchAndPlace(threadId, "active");
      return;
    }
    place({ ...row, updatedAt: new Date(completedAt ?? Date.now()).toISOString() });
  }

  function listen(c: SidebarConnection): Array<() => void> {
    return [
      c.on("thread/started", ({ thread }) =>
        live(() => {
          if (view.value !== "active") return;
          if (thread.workspace.mode === "local") place(summaryOf(thread));
          else fetchAndPlace(thread.id, "active");
        }),
      ),
      c.on("thread/status/changed", ({ threadId, status }) =>
        live(() => {
          const known = patch(threadId, (row) => ({ ...row, status }));
          // A thread older than the loaded pages came to life elsewhere: show it.
          if (!known && status.type === "active" && view.value === "active") fetchAndPlace(threadId, "active");
        }),
      ),
      c.on("thread/name/updated", ({ threadId, name }) => live(() => void patch(threadId, (row) => ({ ...row, name, title: name || row.title })))),
      c.on("thread/turn/completed", ({ threadId, turn }) => live(() => turnCompleted(threadId, turn.status === "failed", turn.completedAt))),
      c.on("thread/archived", ({ threadId }) =>
        live(() => {
          if (view.value === "active") remove(threadId);
          else fetchAndPlace(threadId, "archived");
        }),
      ),
      c.on("thread/unarchived", ({ threadId }) =>
        live(() => {
          if (view.value === "archived") remove(threadId);
          else fetchAndPlace(threadId, "active");
        }),
      ),
      c.on("thread/deleted", ({ threadId }) =>
        live(() => {
          remove(threadId);
          deps.unread.clear(threadId);
        }),
      ),
      // A restarted server may have threads this page never heard of: start over from the first page.
      c.onReconnect(() => void reload()),
    ];
  }

  function watch(): () => void {
    const sought = new Set<string>();
    const stops = [
      ...listen(deps.conn()),
      // Seen is read: the open thread never carries the mark.
      effect(() => {
        const id = deps.activeThreadId.value;
        if (id) deps.unread.clear(id);
      }),
      // The open thread always has its row, even when it is older than the pages loaded so far.
      effect(() => {
        const id = deps.activeThreadId.value;
        if (!id || !listState.value.loaded || view.peek() !== "active") return;
        if (sought.has(id) || rows.peek().some((row) => row.id === id)) return;
        sought.add(id);
        fetchAndPlace(id, "active");
      }),
      // A sub-agent sits under its parent: a parent older than the pages loaded so far is fetched for it.
      effect(() => {
        if (!listState.value.loaded) return;
        const listed = new Set(rows.value.map((row) => row.id));
        for (const row of rows.value) {
          const parent = row.parentThreadId;
          if (!parent || listed.has(parent) || sought.has(parent)) continue;
          sought.add(parent);
          fetchAndPlace(parent, view.peek());
        }
      }),
      // A new search asks the server from the first page; the list then pages through its matches as it scrolls.
      effect(() => {
        const search = searchParam();
        // Outside the effect: reload reads and writes the list's state, which must not become this effect's.
        if (search !== listState.peek().search && listState.peek().loaded) queueMicrotask(() => void reload());
      }),
    ];
    void reload();
    return () => {
      for (const stop of stops) stop();
    };
  }

  const threads = {
    start: (cwd: string, worktree: boolean) => deps.conn().request("thread/start", { cwd, ...(worktree ? { workspace: { mode: "worktree" as const } } : {}) }),
    rename: async (threadId: string, name: string) => void (await deps.conn().request("thread/name/set", { threadId, name })),
    fork: (threadId: string) => deps.conn().request("thread/fork", { threadId }),
    archive: async (threadId: string) => void (await deps.conn().request("thread/archive", { threadId })),
    unarchive: async (threadId: string) => void (await deps.conn().request("thread/unarchive", { threadId })),
    remove: async (threadId: string) => void (await deps.conn().request("thread/delete", { threadId })),
    listFolders: (path: string, limit: number) => deps.conn().request("directory/list", { path, limit }),
  };

  return { rows, view, query, listState, failedLastTurn, reload, loadMore, showView, watch, ...threads };
}

/** A loaded thread as a row; a worktree thread's project is not in `Thread`, so those are read instead. */
function summaryOf(thread: Thread): ThreadSummary {
  return {
    id: thread.id,
    title: thread.name,
    ...(thread.name ? { name: thread.name } : {}),
    cwd: thread.cwd,
    createdAt: thread.createdAt,
    updatedAt: thread.updatedAt,
    ...(thread.forkedFromId ? { forkedFromId: thread.forkedFromId } : {}),
    ...(thread.parentThreadId ? { parentThreadId: thread.parentThreadId } : {}),
    ...(thread.parentCallId ? { parentCallId: thread.parentCallId } : {}),
    workspaceMode: thread.workspace.mode,
    workspace: thread.workspace,
    archived: false,
    status: thread.status,
    sessionFile: thread.sessionFile ?? "",
  };
}

/** A group of the list: its top-level rows, newest first, and under each the sub-agents it started, oldest first. */
export interface ProjectGroup {
  cwd: string;
  rows: ThreadSummary[];
  children: ReadonlyMap<string, ThreadSummary[]>;
}

/**
 * Rows matching the search, grouped by project (a worktree thread's summary
 * names its project), newest group first. A sub-agent sits under its parent's
 * row, not at the top; one whose parent is not listed (yet) keeps a row of
 * its own, so it never goes missing. A parent matches when a sub-agent does.
 */
export function groupByProject(list: readonly ThreadSummary[], search: string): ProjectGroup[] {
  const needle = search.trim().toLowerCase();
  const matches = (row: ThreadSummary) => !needle || (row.title || "New thread").toLowerCase().includes(needle);
  const listed = new Set(list.map((row) => row.id));
  const children = new Map<string, ThreadSummary[]>();
  for (const row of list) {
    if (!row.parentThreadId || !listed.has(row.parentThreadId)) continue;
    let under = children.get(row.parentThreadId);
    if (!under) children.set(row.parentThreadId, (under = []));
    under.push(row);
  }
  for (const under of children.values()) under.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const groups = new Map<string, ProjectGroup>();
  for (const row of list) {
    if (row.parentThreadId && listed.has(row.parentThreadId)) continue;
    const under = children.get(row.id);
    if (!matches(row) && !under?.some(matches)) continue;
    let group = groups.get(row.cwd);
    if (!group) groups.set(row.cwd, (group = { cwd: row.cwd, rows: [], children: new Map() }));
    group.rows.push(row);
    if (under) (group.children as Map<string, ThreadSummary[]>).set(row.id, under);
  }
  return [...groups.values()];
}
