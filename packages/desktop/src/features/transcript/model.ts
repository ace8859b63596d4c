import { effect, signal, type ReadonlySignal, type Signal } from "@preact/signals";
import type { FileTotals, HistoryItem, PayloadRef, TokenUsage, Turn, TurnError, TurnRetryingParams } from "@knightcode/app-server-protocol";
import type { Connection } from "../../connection/connection.js";
import type { OpenThread } from "../../state/open-threads.js";
import { readWholePayload } from "./payload.js";
import { createSubagentActivity, type SubagentActivity } from "./subagents.js";

/**
 * The transcript model: the owner of every open thread's turns and items.
 * Each open thread's transcript is built from its thread/resume answer and
 * kept current by the turn and item notifications, which the model routes;
 * the transcript components are views over it. It reaches the server only
 * through the connection it is given, and draws on the frame clock it is
 * given, so a test runs it in Node over the in-memory transport.
 */

/** What the model needs of a connection: the page's `Connection`, or a test's in-process client. */
export type TranscriptConnection = Pick<Connection, "request" | "on">;

export interface TranscriptDeps {
  /** Asked at each use: the page's connection is set after the model is made. */
  conn: () => TranscriptConnection;
  /** The thread as this page has it open (its resume answer and generation); undefined when it is not open. */
  openThread: (threadId: string) => ReadonlySignal<OpenThread | undefined>;
  reportError: (error: unknown, doing: string) => void;
  /** The frame clock buffered deltas wait for: requestAnimationFrame in the page. */
  frame: { request(run: () => void): number; cancel(handle: number): void };
}

/**
 * One turn as the transcript draws it. Every change replaces the object (and
 * the item objects it changed), so a drawn turn or item whose object is the
 * same as last frame's is skipped.
 */
export interface TurnView {
  id: string;
  status: Turn["status"];
  startedAt: number;
  completedAt?: number;
  error?: TurnError;
  files?: FileTotals[];
  /** The whole turn is a payload reference: its items are not inline. */
  payloadRef?: Turn["payloadRef"];
  items: HistoryItem[];
  retrying?: TurnRetryingParams;
  /** What this turn cost, when this page saw its usage reports. */
  usage?: TokenUsage;
}

export interface TranscriptState {
  turns: TurnView[];
  /** Older history: pass to thread/resume as `cursor`. */
  nextCursor?: string;
  loadingOlder: boolean;
  /** `error` notifications about the thread that belong to no turn. */
  notices: string[];
}

/**
 * The transcript of one open thread: built from the thread/resume answer
 * (again whenever `generation` changes) and kept current by the item
 * notifications. Deltas are only buffered when they arrive and applied once
 * per animation frame, so a fast stream costs one redraw a frame.
 */
export class TranscriptStore {
  readonly state: Signal<TranscriptState>;
  private generation = -1;
  private pending = new Map<string, { turnId: string; text: string }>();
  private frame = 0;
  /** Cumulative usage before the turn that is reporting now: per-turn figures are the difference. */
  private lastUsage: TokenUsage | undefined;
  private readonly turnBase = new Map<string, TokenUsage>();
  readonly dispose: () => void;

  constructor(
    readonly threadId: string,
    private readonly deps: TranscriptDeps,
  ) {
    this.state = signal<TranscriptState>({ turns: [], loadingOlder: false, notices: [] });
    this.dispose = effect(() => {
      const open = deps.openThread(threadId).value;
      if (open && open.generation !== this.generation) {
        this.generation = open.generation;
        this.rebuild();
      }
    });
  }

  private rebuild(): void {
    const open = this.deps.openThread(this.threadId).peek();
    if (!open) return;
    const { turns, runningTurn, nextCursor } = open.resumed;
    this.pending.clear();
    const views = turns.map(toView);
    if (runningTurn && !views.some((t) => t.id === runningTurn.id)) views.push(toView(runningTurn));
    this.lastUsage = open.usage;
    this.turnBase.clear();
    this.state.value = { turns: views, nextCursor, loadingOlder: false, notices: [] };
  }

  /** Loads the page of history before the oldest turn shown. */
  async loadOlder(): Promise<void> {
    const current = this.state.peek();
    if (!current.nextCursor || current.loadingOlder) return;
    const generation = this.generation;
    this.state.value = { ...current, loadingOlder: true };
    try {
      const page = await this.deps.conn().request("thread/resume", { threadId: this.threadId, cursor: current.nextCursor });
      // A reload while the page was on its way replaced the history it continues.
      if (generation !== this.generation) return;
      const now = this.state.peek();
      const known = new Set(now.turns.map((t) => t.id));
      const older = page.turns.filter((t) => !known.has(t.id)).map(toView);
      this.state.value = { ...now, turns: [...older, ...now.turns], nextCursor: page.nextCursor, loadingOlder: false };
    } catch (error) {
      this.state.value = { ...this.state.peek(), loadingOlder: false };
      this.deps.reportError(error, "loading older messages");
    }
  }

  // ---- notifications ----

  turnStarted(turn: Turn): void {
    this.flush();
    this.editTurns((turns) => (turns.some((t) => t.id === turn.id) ? turns : [...turns, toView(turn)]));
    if (this.lastUsage) this.turnBase.set(turn.id, this.lastUsage);
  }

  turnCompleted(turn: Turn): void {
    this.flush();
    this.editTurn(turn.id, (t) => ({
      ...t,
      status: turn.status,
      completedAt: turn.completedAt,
      error: turn.error,
      files: turn.files ?? t.files,
      retrying: undefined,
    }));
  }

  turnRetrying(params: TurnRetryingParams): void {
    this.editTurn(params.turnId, (t) => ({ ...t, retrying: params }));
  }

  turnDiff(turnId: string, files: FileTotals[]): void {
    this.editTurn(turnId, (t) => ({ ...t, files }));
  }

  usage(turnId: string | undefined, usage: TokenUsage): void {
    if (turnId) {
      const base = this.turnBase.get(turnId) ?? this.lastUsage;
      if (base) {
        this.turnBase.set(turnId, base);
        this.editTurn(turnId, (t) => ({ ...t, usage: difference(usage, base) }));
      }
    }
    this.lastUsage = usage;
  }

  /** item/started and item/completed: the item as the server has it now replaces what this page had. */
  putItem(turnId: string, item: HistoryItem): void {
    this.pending.delete(item.id);
    this.flush();
    // An item of a turn whose start this page did not see (it began between the resume answer and now).
    if (!this.state.peek().turns.some((t) => t.id === turnId)) {
      this.turnStarted({ id: turnId, status: "inProgress", startedAt: ("startedAt" in item && item.startedAt) || Date.now() });
    }
    this.editTurn(turnId, (t) => {
      const at = t.items.findIndex((i) => i.id === item.id);
      const items = at < 0 ? [...t.items, item] : t.items.map((i, n) => (n === at ? item : i));
      return { ...t, items };
    });
  }

  /** A turn that came as a payload reference, read: its items take the reference's place. */
  fillTurn(turnId: string, turn: Turn): void {
    this.editTurn(turnId, (t) => ({ ...t, payloadRef: undefined, items: turn.items ?? [], error: turn.error ?? t.error, files: turn.files ?? t.files }));
  }

  removeItem(turnId: string, itemId: string): void {
    this.pending.delete(itemId);
    this.editTurn(turnId, (t) => ({ ...t, items: t.items.filter((i) => i.id !== itemId) }));
  }

  delta(turnId: string, itemId: string, text: string): void {
    const entry = this.pending.get(itemId);
    if (entry) entry.text += text;
    else this.pending.set(itemId, { turnId, text });
    if (!this.frame) this.frame = this.deps.frame.request(() => this.flush());
  }

  notice(message: string): void {
    const s = this.state.peek();
    this.state.value = { ...s, notices: [...s.notices.slice(-4), message] };
  }

  /** Applies the buffered deltas in one state change. */
  flush(): void {
    if (this.frame) this.deps.frame.cancel(this.frame);
    this.frame = 0;
    if (this.pending.size === 0) return;
    const byTurn = new Map<string, Map<string, string>>();
    for (const [itemId, { turnId, text }] of this.pending) {
      let items = byTurn.get(turnId);
      if (!items) byTurn.set(turnId, (items = new Map()));
      items.set(itemId, text);
    }
    this.pending.clear();
    this.editTurns((turns) =>
      turns.map((t) => {
        const added = byTurn.get(t.id);
        if (!added) return t;
        const items = t.items.map((item) => {
          const more = added.get(item.id);
          if (more === undefined || !("text" in item)) return item;
          return { ...item, text: item.text + more };
        });
        return { ...t, items };
      }),
    );
  }

  private editTurns(change: (turns: TurnView[]) => TurnView[]): void {
    const s = this.state.peek();
    const turns = change(s.turns);
    if (turns !== s.turns) this.state.value = { ...s, turns };
  }

  private editTurn(turnId: string, change: (turn: TurnView) => TurnView): void {
    this.editTurns((turns) => {
      const at = turns.findIndex((t) => t.id === turnId);
      if (at < 0) return turns;
      return turns.map((t, n) => (n === at ? change(t) : t));
    });
  }
}

function toView(turn: Turn): TurnView {
  return {
    id: turn.id,
    status: turn.status,
    startedAt: turn.startedAt,
    completedAt: turn.completedAt,
    error: turn.error,
    files: turn.files,
    payloadRef: turn.payloadRef,
    items: turn.items ?? [],
  };
}

function difference(now: TokenUsage, before: TokenUsage): TokenUsage {
  return {
    input: now.input - before.input,
    output: now.output - before.output,
    cacheRead: now.cacheRead - before.cacheRead,
    cacheWrite: now.cacheWrite - before.cacheWrite,
    cost: now.cost - before.cost,
    contextTokens: now.contextTokens,
    contextWindow: now.contextWindow,
  };
}

export interface TranscriptModel {
  /** The transcript of a thread; made on first use. */
  transcript(threadId: string): TranscriptStore;
  /**
   * Routes the item and turn notifications to the open threads' transcripts.
   * Installed before the first render, so nothing that arrives between a
   * thread's resume answer and its first drawing is lost. Returns its disposer.
   */
  watch(): () => void;
  /** A value too large to come inline (a tool's output, a turn), read whole and decoded as text. */
  readPayload(ref: PayloadRef): Promise<string>;
  /** What the open threads' sub-agents last said and where they stand, for their cards. */
  subagents: SubagentActivity;
}

export function createTranscriptModel(deps: TranscriptDeps): TranscriptModel {
  const stores = new Map<string, TranscriptStore>();
  const subagents = createSubagentActivity(deps.conn, deps.frame);

  function transcript(threadId: string): TranscriptStore {
    let store = stores.get(threadId);
    if (!store) stores.set(threadId, (store = new TranscriptStore(threadId, deps)));
    return store;
  }

  /**
   * Only threads this page has open have a transcript: notifications about
   * others are not ours to keep. A sub-agent's, which come through its
   * parent's subscription, name the sub-agent: they never reach the parent's.
   */
  function ifOpen(threadId: string | undefined): TranscriptStore | undefined {
    if (!threadId) return undefined;
    return stores.get(threadId) ?? (deps.openThread(threadId).peek() ? transcript(threadId) : undefined);
  }

  function watch(): () => void {
    const c = deps.conn();
    const stops = [
      c.on("turn/started", ({ threadId, turn }) => ifOpen(threadId)?.turnStarted(turn)),
      c.on("turn/completed", ({ threadId, turn }) => ifOpen(threadId)?.turnCompleted(turn)),
      c.on("turn/retrying", (params) => ifOpen(params.threadId)?.turnRetrying(params)),
      c.on("turn/diff/updated", ({ threadId, turnId, files }) => ifOpen(threadId)?.turnDiff(turnId, files)),
      c.on("item/started", ({ threadId, turnId, item }) => ifOpen(threadId)?.putItem(turnId, item)),
      c.on("item/completed", ({ threadId, turnId, item }) => ifOpen(threadId)?.putItem(turnId, item)),
      c.on("item/removed", ({ threadId, turnId, itemId }) => ifOpen(threadId)?.removeItem(turnId, itemId)),
      c.on("item/agentMessage/delta", ({ threadId, turnId, itemId, delta }) => ifOpen(threadId)?.delta(turnId, itemId, delta)),
      c.on("item/reasoning/delta", ({ threadId, turnId, itemId, delta }) => ifOpen(threadId)?.delta(turnId, itemId, delta)),
      c.on("thread/tokenUsage/updated", ({ threadId, turnId, usage }) => ifOpen(threadId)?.usage(turnId, usage)),
      c.on("error", ({ threadId, message }) => ifOpen(threadId)?.notice(message)),
      c.on("warning", ({ threadId, warning }) => ifOpen(threadId)?.notice(`Warning: ${warning.message}`)),
      subagents.watch(),
    ];
    return () => {
      for (const stop of stops) stop();
      for (const store of stores.values()) store.dispose();
      stores.clear();
    };
  }

  return { transcript, watch, readPayload: (ref) => readWholePayload(deps.conn(), ref), subagents };
}
