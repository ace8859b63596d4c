import type { BranchPage } from "@knightcode/store/session/read-page";
import { PAGE_TURNS, pageForWire, pageReusable, readPage, readPageBefore, skipKnownTurns, type SkipTurnBody } from "../../history/page.js";
import { responseBudget } from "../../payloads/refs.js";
import type { LoadedThread } from "../../threads/loaded-thread.js";
import { threadCreated } from "../../threads/created.js";
import type { Handler, RequestContext } from "../../rpc/handler.js";

/**
 * thread/resume: loads the thread and answers its newest (or named) history
 * page with live snapshots. From the page read to the answer nothing
 * awaits: the snapshots and the subscription are one step. With `afterSeq`,
 * the same step also takes what the thread sent since then, when it still
 * holds all of it, to send right after the answer (see `replayTo`).
 */
export const handler: Handler<"thread/resume"> = async (params, ctx) => {
  const threads = await ctx.services.threads();
  return threads.using(params.threadId, async (thread) => {
    const store = ctx.context.payloads;
    const saved = ctx.context.savedTurns;
    const cursor = params.cursor ?? undefined;
    let page = await settledPage(thread, params.threadId, cursor, skipKnownTurns(saved, params.threadId));
    // Checked with no await before the answer: what the check found kept is what the answer uses.
    if (!pageReusable(page, params.threadId, store, saved, thread.turns.runningTurnId)) page = await settledPage(thread, params.threadId, cursor);
    const runningTurn = thread.runningTurnForWire(store);
    const replayed = params.afterSeq === undefined ? {} : { replayed: replayTo(thread, params.afterSeq, ctx) };
    thread.resumedBy(ctx.connection);
    const created = threadCreated(thread);
    const rest = {
      thread: created.thread,
      ...(runningTurn ? { runningTurn } : {}),
      queue: thread.turns.queueSnapshot(),
      usage: thread.usage,
      warnings: thread.loadWarnings,
      ui: created.ui,
    };
    const skip = runningTurn ? { skipTurnId: runningTurn.id } : {};
    return { ...rest, ...pageForWire(page, params.threadId, store, responseBudget(rest), { ...skip, saved }), ...replayed };
  });
};

/**
 * Whether what `thread` sent after `afterSeq` goes to this client again.
 * When the thread still holds all of it, everything about the thread to
 * this client waits from now until the answer is out; then the held events
 * go, in order, and after them what waited. Decided before the client
 * subscribes, so what the subscription sends is newer than the replay and
 * waits behind it: nothing is lost between the two, nor sent twice.
 */
function replayTo(thread: LoadedThread, afterSeq: number, ctx: RequestContext): boolean {
  const events = thread.core.replayAfter(afterSeq);
  if (events === undefined) return false;
  const release = ctx.connection.holdForReplay(thread.id);
  if (release === undefined) return false;
  ctx.afterAnswer(() => release(events));
  return true;
}

/**
 * The page as the transcript stands when the answer is built. The read
 * awaits the disk while the thread may write (a turn ends, another starts);
 * what it wrote meanwhile is in memory, so the page is cut where the leaf was
 * when the read began and continued from there. Older pages need nothing:
 * appends never change them.
 */
async function settledPage(thread: LoadedThread, threadId: string, cursor: string | undefined, skip?: SkipTurnBody): Promise<BranchPage> {
  if (cursor === undefined) {
    const before = await pageBeforeRunningTurn(thread, threadId, skip);
    if (before) return before;
  }
  for (let attempt = 1; ; attempt++) {
    const leaf = thread.file.leafId;
    const page = await readPage(thread.file.path, threadId, cursor, skip);
    if (cursor !== undefined || thread.file.leafId === leaf) return page;
    const since = thread.file.entriesSince(leaf);
    const end = leaf === null ? 0 : page.entries.findIndex((entry) => entry.id === leaf) + 1;
    if (since !== undefined && (leaf === null || end > 0)) return { ...page, entries: [...page.entries.slice(0, end), ...since] };
    // The branch moved under the read: read again, a few times at most.
    if (attempt === 3) return page;
  }
}

/**
 * The newest page while a turn runs, read only up to the running turn's
 * start: that turn travels apart as `runningTurn`, so however long it grows
 * the read costs it nothing. Its start counts as one of the page's turns,
 * as in a read from the leaf. Undefined when no turn runs, its start is not
 * held, the read fails, or the turn ended meanwhile: the read from the leaf
 * settles those.
 */
async function pageBeforeRunningTurn(thread: LoadedThread, threadId: string, skip: SkipTurnBody | undefined): Promise<BranchPage | undefined> {
  const turnId = thread.turns.runningTurnId;
  if (turnId === undefined) return undefined;
  const start = thread.file.heldRef(turnId);
  if (start?.type !== "turn_start") return undefined;
  let page: BranchPage;
  if (start.parentId === null) {
    page = { header: thread.file.header, entries: [], next: undefined, turnStarts: new Map(), issues: [], readFrom: "end" };
  } else {
    try {
      page = await readPageBefore(thread.file.path, threadId, { id: start.parentId, before: start.offset }, PAGE_TURNS - 1, skip);
    } catch {
      return undefined;
    }
  }
  return thread.turns.runningTurnId === turnId ? page : undefined;
}
