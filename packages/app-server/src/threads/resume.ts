import { pageForWire, readPage } from "../history/page.js";
import { responseBudget, turnForWire } from "../payloads/refs.js";
import { threadCreated } from "./start.js";
import type { ThreadHandler } from "./thread-handler.js";

/**
 * thread/resume: loads the thread and answers its newest (or named) history
 * page with live snapshots. From the page read to the answer nothing
 * awaits: the snapshots and the subscription are one step.
 */
export const resumeThread: ThreadHandler<"thread/resume"> = async (params, ctx, threads) =>
  threads.using(params.threadId, async (thread) => {
    const page = await readPage(thread.file.path, params.threadId, params.cursor ?? undefined);
    const store = threads.context.payloads;
    const running = thread.runningTurn();
    const runningTurn = running ? turnForWire(running, store) : undefined;
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
    return { ...rest, ...pageForWire(page, params.threadId, store, responseBudget(rest), running?.id) };
  });
