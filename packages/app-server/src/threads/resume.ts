import { readBranchPage, SessionFileError } from "@knightcode/agent";
import type { ThreadHandler } from "./thread-handler.js";
import { rpcError } from "../rpc/errors.js";
import { decodeCursor, encodeCursor } from "../history/cursor.js";
import { turnsFromEntries } from "../history/turns.js";
import { sessionError } from "./manager.js";
import { threadCreated } from "./start.js";

export const PAGE_TURNS = 50;

export const resumeThread: ThreadHandler<"thread/resume"> = async (params, ctx, threads) => {
  const cursor = params.cursor === undefined ? undefined : decodeCursor(params.cursor, params.threadId);
  return threads.using(params.threadId, async (thread) => {
    let page;
    try {
      page = await readBranchPage(thread.file.path, { turns: PAGE_TURNS, ...(cursor ? { cursor } : {}) });
    } catch (error) {
      if (error instanceof SessionFileError && error.code === "notFound") throw rpcError("invalidCursor", "the cursor does not lead into this thread's history");
      throw sessionError(error, params.threadId);
    }
    // From here to the answer nothing awaits: the snapshots and the subscription are one step.
    const runningTurn = thread.runningTurn();
    const turns = turnsFromEntries(page.entries).filter((turn) => turn.id !== runningTurn?.id);
    thread.resumedBy(ctx.connection);
    const created = threadCreated(thread);
    return {
      thread: created.thread,
      turns,
      ...(page.next ? { nextCursor: encodeCursor(page.next, params.threadId) } : {}),
      ...(runningTurn ? { runningTurn } : {}),
      queue: thread.queue(),
      usage: thread.usage,
      warnings: thread.loadWarnings,
      ui: created.ui,
    };
  });
};
