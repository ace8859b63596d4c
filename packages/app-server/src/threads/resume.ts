import type { ThreadHandler } from "./thread-handler.js";
import { readPage, pageForWire } from "../history/page.js";
import { responseBudget, turnForWire, type WireTurn } from "../payloads/refs.js";
import { threadCreated } from "./start.js";

export const resumeThread: ThreadHandler<"thread/resume"> = async (params, ctx, threads) =>
  threads.using(params.threadId, async (thread) => {
    const page = await readPage(thread.file.path, params.threadId, params.cursor ?? undefined);
    // From here to the answer nothing awaits: the snapshots and the subscription are one step.
    const store = threads.context.payloads;
    const running = thread.runningTurn();
    const runningTurn = running ? turnForWire(running as WireTurn, store) : undefined;
    thread.resumedBy(ctx.connection);
    const created = threadCreated(thread);
    const rest = {
      thread: created.thread,
      ...(runningTurn ? { runningTurn } : {}),
      queue: thread.queue(),
      usage: thread.usage,
      warnings: thread.loadWarnings,
      ui: created.ui,
    };
    return { ...rest, ...pageForWire(page, params.threadId, store, responseBudget(rest), running?.id) };
  });
