import type { ServerContext } from "../context.js";
import type { Connection } from "../rpc/connection.js";
import { rpcError, toWireError } from "../rpc/errors.js";

export interface ShutdownTimings {
  /** When unfinished accepted requests are answered `shuttingDown`. */
  answerDeadlineMs: number;
  /** When output draining gives up; the caller exits then. */
  drainDeadlineMs: number;
}

export const DEFAULT_SHUTDOWN_TIMINGS: ShutdownTimings = { answerDeadlineMs: 9000, drainDeadlineMs: 10000 };

function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))));
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * The part of shutdown after input stopped: cancel shared work, wait for
 * accepted requests, answer stragglers at the deadline, drain output.
 */
export async function shutdownConnections(
  connections: Connection[],
  context: ServerContext,
  threads: { closeAll(): Promise<void> },
  timings: Partial<ShutdownTimings> = {},
): Promise<void> {
  const { answerDeadlineMs, drainDeadlineMs } = { ...DEFAULT_SHUTDOWN_TIMINGS, ...timings };
  const start = Date.now();
  const elapsed = () => Date.now() - start;

  const settledAll = (async () => {
    await context.dispose();
    await Promise.all(connections.flatMap((c) => c.pendingRequests().map((r) => r.settled)));
  })();
  const answerDeadline = delay(answerDeadlineMs);
  await Promise.race([settledAll, answerDeadline.promise]);
  answerDeadline.cancel();

  for (const connection of connections) {
    for (const request of connection.pendingRequests()) {
      request.settle({ error: toWireError(rpcError("shuttingDown", "the server shut down before this request finished")) });
      request.controller.abort(new Error("shutting down"));
    }
  }

  // Every thread unloads: running turns stop, extensions shut down, session locks are released.
  const unloaded = threads.closeAll().catch((error: unknown) => context.log.error("closing threads failed", error));
  const drainDeadline = delay(drainDeadlineMs - elapsed());
  await Promise.race([Promise.all([unloaded, ...connections.map((c) => c.transport.flush())]), drainDeadline.promise]);
  drainDeadline.cancel();
  for (const connection of connections) connection.close();
}
