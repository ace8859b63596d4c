import type { ClientRequestMethod, ClientRequestParams, ClientRequestResult } from "@knightcode/app-server-protocol";
import type { RequestContext } from "../rpc/handler.js";
import type { ThreadManager } from "./manager.js";

/** A handler that needs the thread layer: it runs once that layer loaded, and gets the manager. */
export type ThreadHandler<M extends ClientRequestMethod> = (
  params: ClientRequestParams<M>,
  ctx: RequestContext,
  threads: ThreadManager,
) => ClientRequestResult<M> | Promise<ClientRequestResult<M>>;

/** A domain's slice of the thread layer's handlers: each method's handler, checked against the method. */
export type ThreadHandlers = Partial<{ [M in ClientRequestMethod]: ThreadHandler<M> }>;
