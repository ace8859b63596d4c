import type { ServerContext } from "../host/context.js";
import type { Connection } from "../rpc/connection.js";
import { rpcError } from "../rpc/errors.js";

export interface ShutdownTimings {
  /** When unfinished accepted requests are answered `shuttingDown`, and running turns must have settled. */
  answerDeadlineMs: number;
  /** When output draining gives up; the caller exits then. */
  drainDeadlineMs: number;
}

export const DEFAULT_SHUTDOWN_TIMINGS: ShutdownTimings = { answerDeadlineMs: 9000, drainDeadlineMs: 10000 };

/** A deadline: resolves after its time unless cancelled. */
export interface Deadline {
  promise: Promise<void>;
  cancel(): void;
}

/** Where shutdown's deadlines come from: timers, or a test's hand. */
export interface ShutdownClock {
  after(ms: number): Deadline;
}

export const realClock: ShutdownClock = {
  after(ms) {
    let timer: NodeJS.Timeout | undefined;
    const promise = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))));
    return { promise, cancel: () => clearTimeout(timer) };
  },
};

/** What shutdown asks of the threads. */
export interface ShutdownThreads {
  /** No thread takes new work and every running turn is interrupted; resolves once each wrote its entries. */
  stopTurns(): Promise<void>;
  /** Unloads every thread, waiting for a turn that still runs no longer than `deadline`. */
  closeAll(deadline: Promise<void>): Promise<void>;
}

export interface ShutdownOptions {
  timings?: Partial<ShutdownTimings>;
  clock?: ShutdownClock;
}

/**
 * The part of shutdown after input stopped. Running turns are interrupted
 * at once, as turn/interrupt does, and accepted requests run on; at the
 * answer deadline whatever is unanswered gets `shuttingDown`. Then every
 * thread unloads (the streamed text of an interrupted turn is already
 * written), shared resources are released and output drains, until the
 * drain deadline.
 */
export async function shutdownConnections(
  connections: Connection[],
  context: ServerContext,
  threads: ShutdownThreads,
  options: ShutdownOptions = {},
): Promise<void> {
  const { answerDeadlineMs, drainDeadlineMs } = { ...DEFAULT_SHUTDOWN_TIMINGS, ...options.timings };
  const clock = options.clock ?? realClock;
  const answerDeadline = clock.after(answerDeadlineMs);
  const drainDeadline = clock.after(drainDeadlineMs);
  const log = (what: string) => (error: unknown) => context.log.error(what, error);

  const turnsStopped = threads.stopTurns().catch(log("stopping turns failed"));
  const requestsSettled = Promise.all(connections.flatMap((c) => c.pendingRequests().map((r) => r.settled)));
  await Promise.race([Promise.all([turnsStopped, requestsSettled]), answerDeadline.promise]);

  for (const connection of connections) {
    for (const request of connection.pendingRequests()) {
      request.settle({ error: rpcError("shuttingDown", "the server shut down before this request finished").toWire() });
      request.controller.abort(new Error("shutting down"));
    }
  }

  // Every thread unloads: extensions shut down, processes die, session locks are released; then the shared spool goes.
  const released = (async () => {
    await threads.closeAll(answerDeadline.promise).catch(log("closing threads failed"));
    await context.dispose().catch(log("releasing shared resources failed"));
  })();
  await Promise.race([Promise.all([released, ...connections.map((c) => c.transport.flush())]), drainDeadline.promise]);
  answerDeadline.cancel();
  drainDeadline.cancel();
  for (const connection of connections) connection.close();
}
