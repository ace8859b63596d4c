import type { ServerNotificationMethod, ServerNotificationParams } from "@knightcode/app-server-protocol";
import type { ServerContext } from "./context.js";

/**
 * What the parts of a server may ask of the server that holds them: its
 * context, a notification to every initialized connection, word when input
 * stops, and how many threads it holds. `AppServer` is the one; the parts
 * name this instead, so no folder imports the composition root.
 */
export interface ServerHost {
  readonly context: ServerContext;
  /** Shutdown began: input stopped, and nothing new starts. */
  readonly isShuttingDown: boolean;
  /** To every initialized connection; `seq` is the thread's number for it, when it is about a thread. */
  broadcast<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>, seq?: number): void;
  /** `stop` runs once, when input stops at the start of shutdown. */
  onStopInput(stop: () => void): void;
  threadCounts(): { loaded: number; loading: number };
}
