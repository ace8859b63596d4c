import type { ClientRequestMethod, ClientRequestParams, ClientRequestResult, RequestId } from "@knightcode/app-server-protocol";
import type { ServerContext } from "../host/context.js";
import type { Logger } from "../host/log.js";
import type { ServerHost } from "../host/server-host.js";
import type { Services } from "../services/services.js";
import type { Connection } from "./connection.js";

/** What a handler may use: its connection, the server's services, a logger and its abort signal. */
export interface RequestContext {
  readonly requestId: RequestId;
  readonly connection: Connection;
  readonly server: ServerHost;
  readonly context: ServerContext;
  /** Trust, registry, catalog, threads, accounts: each built on first use, so a handler loads only what it asks for. */
  readonly services: Services;
  readonly log: Logger;
  /** Aborted when the connection closes or shutdown's deadline passes. */
  readonly signal: AbortSignal;
  /** Runs `run` right after the answer (or the error) is written, in the same step: what must follow the answer and precede anything else. */
  afterAnswer(run: () => void): void;
}

export type Handler<M extends ClientRequestMethod> = (
  params: ClientRequestParams<M>,
  ctx: RequestContext,
) => ClientRequestResult<M> | Promise<ClientRequestResult<M>>;

/** One handler per client request of the protocol table: a missing one is a compile error. */
export type HandlerTable = { [M in ClientRequestMethod]: Handler<M> };

/** A file under `methods/`: the handler of the method its path names. */
export interface MethodModule<M extends ClientRequestMethod> {
  readonly handler: Handler<M>;
}

/** A method's module, imported with the server or loaded on the method's first request. */
export type MethodSource<M extends ClientRequestMethod> = MethodModule<M> | (() => Promise<MethodModule<M>>);

/** Every client request's module, by method: a method without a file under `methods/` is a compile error. */
export type MethodTable = { [M in ClientRequestMethod]: MethodSource<M> };
