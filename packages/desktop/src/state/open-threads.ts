import { signal, type Signal } from "@preact/signals";
import type { QueueSnapshot, Thread, ThreadResumeResult, ThreadUi, TokenUsage, Warning } from "@knightcode/app-server-protocol";
import { ClientError } from "@knightcode/app-server-client/browser";
import { conn } from "../connection/connection.js";

/**
 * A thread this page has open (subscribed to): what `thread/resume` or
 * `thread/start` answered, kept current by the thread's notifications.
 * Turns and items are the transcript's own store; this holds the thread.
 */
export interface OpenThread {
  thread: Thread;
  ui: ThreadUi;
  queue: QueueSnapshot;
  usage: TokenUsage;
  warnings: Warning[];
  /** The first page of history as the last (re)load answered it; `generation` changes with each. */
  resumed: ThreadResumeResult;
  generation: number;
}

/** One signal per open thread, so a change to one redraws only what shows it. */
const open = new Map<string, Signal<OpenThread | undefined>>();
const loading = new Map<string, Promise<OpenThread>>();
let generation = 0;

export function openThreadSignal(threadId: string): Signal<OpenThread | undefined> {
  let entry = open.get(threadId);
  if (!entry) open.set(threadId, (entry = signal(undefined)));
  return entry;
}

/** Resumes a thread once (subscribing the page to it); later calls share the answer. */
export function ensureOpen(threadId: string): Promise<OpenThread> {
  const known = openThreadSignal(threadId).value;
  if (known) return Promise.resolve(known);
  let pending = loading.get(threadId);
  if (!pending) {
    pending = resumeSurvivingRestart(threadId)
      .then((resumed) => adopt(resumed))
      .finally(() => loading.delete(threadId));
    loading.set(threadId, pending);
  }
  return pending;
}

/**
 * A resume cut off by the connection dropping was never remembered by the
 * client, so the reconnection does not redo it: ask again once it is back.
 */
function resumeSurvivingRestart(threadId: string): Promise<ThreadResumeResult> {
  return conn()
    .request("thread/resume", { threadId })
    .catch((error: unknown) => {
      if (!(error instanceof ClientError && error.kind === "closed")) throw error;
      return new Promise<void>((resolve) => {
        const stop = conn().onReconnect(() => {
          stop();
          resolve();
        });
      }).then(() => conn().request("thread/resume", { threadId }));
    });
}

/** Records a thread/start, thread/fork or thread/resume answer as the thread's state. */
export function adopt(resumed: ThreadResumeResult): OpenThread {
  const state: OpenThread = {
    thread: resumed.thread,
    ui: resumed.ui,
    queue: resumed.queue,
    usage: resumed.usage,
    warnings: resumed.warnings,
    resumed,
    generation: ++generation,
  };
  openThreadSignal(resumed.thread.id).value = state;
  return state;
}

function update(threadId: string, change: (state: OpenThread) => OpenThread): void {
  const entry = open.get(threadId);
  if (entry?.value) entry.value = change(entry.value);
}

/** The reloads under way after thread/replaced, by thread. */
const reloads = new Map<string, Promise<void>>();

/**
 * Resolves once the thread's reload after thread/replaced, if one is under
 * way, has been taken. A turn started before then could stream into the
 * old state and be wiped by the reloaded one, taken from an earlier moment.
 */
export function reloaded(threadId: string): Promise<void> {
  return reloads.get(threadId) ?? Promise.resolve();
}

/** Keeps every open thread's state current; returns the function that stops it. */
export function watchOpenThreads(): () => void {
  const c = conn();
  const stops = [
    c.on("thread/status/changed", ({ threadId, status }) => update(threadId, (s) => ({ ...s, thread: { ...s.thread, status } }))),
    c.on("thread/name/updated", ({ threadId, name }) => update(threadId, (s) => ({ ...s, thread: { ...s.thread, name } }))),
    c.on("thread/planMode/updated", ({ threadId, planMode }) => update(threadId, (s) => ({ ...s, thread: { ...s.thread, planMode } }))),
    c.on("thread/tokenUsage/updated", ({ threadId, usage }) => update(threadId, (s) => ({ ...s, usage }))),
    c.on("turn/queue/updated", ({ threadId, steering, followUp }) => update(threadId, (s) => ({ ...s, queue: { steering, followUp } }))),
    // A handoff or a rewind reloads the thread: same id, fresh state and history.
    c.on("thread/replaced", ({ threadId }) => {
      const reload: Promise<void> = conn()
        .request("thread/resume", { threadId })
        .then(
          (resumed) => void adopt(resumed),
          () => undefined,
        )
        .finally(() => {
          if (reloads.get(threadId) === reload) reloads.delete(threadId);
        });
      reloads.set(threadId, reload);
    }),
    c.on("thread/archived", ({ threadId }) => forget(threadId)),
    c.on("thread/deleted", ({ threadId }) => forget(threadId)),
    // After a server restart the client resumed every open thread: take the fresh answers.
    c.onReconnect((resumed) => {
      for (const entry of resumed) if (entry.ok) adopt(entry.result);
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/** Changes a thread's own fields locally after a request that changed them succeeded. */
export function patchThread(threadId: string, fields: Partial<Thread>): void {
  update(threadId, (s) => ({ ...s, thread: { ...s.thread, ...fields } }));
}

export function patchUi(threadId: string, change: (ui: ThreadUi) => ThreadUi): void {
  update(threadId, (s) => ({ ...s, ui: change(s.ui) }));
}

function forget(threadId: string): void {
  const entry = open.get(threadId);
  if (entry) entry.value = undefined;
}

/** Records a new thread (thread/start or thread/fork): no history yet. */
export function adoptStarted(started: { thread: Thread; ui: ThreadUi; warnings: Warning[] }): OpenThread {
  return adopt({
    thread: started.thread,
    ui: started.ui,
    warnings: started.warnings,
    turns: [],
    queue: { steering: [], followUp: [] },
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextWindow: 0 },
  });
}
