import type { QueuedInput } from "@knightcode/agent/turn/input-queue";
import type { WorkspaceState } from "@knightcode/store/session/format";
import type { LoadedThread } from "./loaded-thread.js";

/** What replacing and relocating a thread need of the manager. */
export interface ReplaceHost {
  create(cwd: string, setup: (thread: LoadedThread) => Promise<void> | void, options?: { workspace?: WorkspaceState }): Promise<LoadedThread>;
  close(thread: LoadedThread, reason: "unload", deadline?: Promise<void>, options?: { quiet?: boolean }): Promise<void>;
  load(threadId: string): Promise<LoadedThread>;
  /** Threads a session-replacing command began on: no second one may. */
  readonly replacing: WeakSet<LoadedThread>;
}

/**
 * `/new` and an extension's ctx.newSession(): a fresh thread in the old
 * one's folder, with its model, thinking level and approval mode, and
 * announced as any new thread. The old thread's subscribers move to it
 * (thread/replaced), its extension contexts go stale, and it unloads once
 * what runs on it (the command that asked) has settled. Its history stays
 * as it was; resuming it loads it afresh.
 */
export async function replaceThread(host: ReplaceHost, old: LoadedThread): Promise<LoadedThread> {
  const { replacing } = host;
  if (replacing.has(old)) throw new Error(`thread ${old.id} is already being replaced`);
  replacing.add(old);
  let fresh: LoadedThread;
  try {
    const session = old.runtime.session;
    const model = session.model;
    const thinkingLevel = session.thinkingLevel;
    // The new thread runs where the old one ran: in its worktree too.
    const workspace = old.file.summary().workspace;
    fresh = await host.create(
      old.file.header.cwd,
      async (created) => {
        await created.runtime
          .choose({ ...(model ? { model: { provider: model.provider, id: model.id } } : {}), thinkingLevel })
          .catch((error: unknown) => created.log.warn(`the replaced thread's model could not be chosen: ${(error as Error).message}`));
        created.setApprovalMode(old.approvalMode);
      },
      workspace ? { workspace } : {},
    );
  } catch (error) {
    // The replacement failed before anything moved: another may try.
    replacing.delete(old);
    throw error;
  }
  handOver(old, fresh);
  old.turns
    .settled()
    .then(() => host.close(old, "unload"))
    .catch((error: unknown) => old.log.error("unloading a replaced thread", error));
  return fresh;
}

/**
 * The thread was replaced by `to`: each subscriber hears thread/replaced
 * (with what it needs to show `to` at once) and is moved to `to` in the
 * same step, so nothing of `to` reaches it first. The extension contexts
 * of `from` go stale.
 */
function handOver(from: LoadedThread, to: LoadedThread): void {
  from.core.flushQueueUpdate();
  const replaced = { threadId: from.id, thread: to.thread(), warnings: to.loadWarnings, ui: to.ui.snapshot() };
  to.lastInitiator ??= from.lastInitiator;
  const seq = from.core.stamp("thread/replaced", replaced);
  for (const connection of from.subscriberConnections()) {
    connection.notify("thread/replaced", replaced, seq);
    to.subscribe(connection);
    from.unsubscribe(connection);
  }
  from.runtime.host.retire(to.id);
}

/**
 * A thread moves to where it now runs (a handoff): `work` runs while the
 * thread is held (refused during a turn) and records the move in its
 * transcript; then the thread unloads and loads again from it, in the
 * same step for its subscribers: each hears thread/replaced with the same
 * id and stays subscribed, and the inputs queued on it wait on the
 * reloaded thread. When `work` fails, the thread goes on where it was.
 */
export async function relocateThread<T>(host: ReplaceHost, thread: LoadedThread, work: () => Promise<T>): Promise<{ thread: LoadedThread; result: T }> {
  const release = thread.hold();
  let moved: { result: T; queued: QueuedInput[] };
  try {
    moved = await thread.turns.exclusiveThenClose(work);
  } finally {
    release();
  }
  const subscribers = thread.subscriberConnections();
  const initiator = thread.lastInitiator;
  await host.close(thread, "unload", undefined, { quiet: true });
  const fresh = await host.load(thread.id);
  const hold = fresh.hold();
  try {
    fresh.lastInitiator ??= initiator?.state === "closed" ? undefined : initiator;
    const replaced = { threadId: fresh.id, thread: fresh.thread(), warnings: fresh.loadWarnings, ui: fresh.ui.snapshot() };
    const seq = fresh.core.stamp("thread/replaced", replaced);
    for (const connection of subscribers) {
      if (connection.state === "closed") continue;
      connection.notify("thread/replaced", replaced, seq);
      fresh.subscribe(connection);
    }
    fresh.turns.restoreQueue(moved.queued);
  } finally {
    hold();
  }
  return { thread: fresh, result: moved.result };
}
