import { AppServer, ServerContext, type ServerContextOptions } from "@knightcode/app-server/cli";

const HARD_EXIT_MS = 10_000;
const DRAIN_DEADLINE_MS = 9_900;

export interface RunningServer {
  server: AppServer;
  log: ServerContext["log"];
  /** Drains and exits with 0; the process exits anyway after ten seconds. Later calls do nothing. */
  shutdown(reason: string): void;
}

/**
 * The server both commands run: its context, the process-wide error
 * handlers, and a shutdown on SIGINT and SIGTERM that lets running turns end
 * and threads be saved before the process exits.
 */
export function startServer(options: ServerContextOptions): RunningServer {
  const context = new ServerContext(options);
  const log = context.log;
  process.on("uncaughtException", (error) => log.error("uncaught exception", error));
  process.on("unhandledRejection", (error) => log.error("unhandled rejection", error));

  const server = new AppServer({ context });
  let exiting = false;
  const shutdown = (reason: string) => {
    if (exiting) return;
    exiting = true;
    setTimeout(() => process.exit(0), HARD_EXIT_MS).unref();
    server
      .shutdown(reason, { timings: { drainDeadlineMs: DRAIN_DEADLINE_MS } })
      .catch((error: unknown) => log.error("shutdown failed", error))
      .finally(() => process.exit(0));
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  return { server, log, shutdown };
}
