import type { ClientRequestMethod, ClientRequestParams, ClientRequestResult, RequestId } from "@knightcode/app-server-protocol";
import type { ServerContext } from "../context.js";
import type { Logger } from "../log.js";
import type { AppServer } from "../server.js";
import type { Connection } from "./connection.js";

/** What a handler may use: its connection, the shared server, a logger and its abort signal. */
export interface RequestContext {
  readonly requestId: RequestId;
  readonly connection: Connection;
  readonly server: AppServer;
  readonly context: ServerContext;
  readonly log: Logger;
  /** Aborted when the connection closes or shutdown's deadline passes. */
  readonly signal: AbortSignal;
}

export type Handler<M extends ClientRequestMethod> = (
  params: ClientRequestParams<M>,
  ctx: RequestContext,
) => ClientRequestResult<M> | Promise<ClientRequestResult<M>>;

/** One handler per client request of the protocol table: a missing one is a compile error. */
export type HandlerTable = { [M in ClientRequestMethod]: Handler<M> };
