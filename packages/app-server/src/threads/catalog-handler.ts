import type { ClientRequestMethod, ClientRequestParams, ClientRequestResult } from "@knightcode/app-server-protocol";
import type { RequestContext } from "../rpc/handler.js";
import type { ThreadCatalog } from "./catalog.js";

/** A handler that needs only the threads on disk (listing, history): it gets the catalog, never the thread layer. */
export type CatalogHandler<M extends ClientRequestMethod> = (
  params: ClientRequestParams<M>,
  ctx: RequestContext,
  catalog: ThreadCatalog,
) => ClientRequestResult<M> | Promise<ClientRequestResult<M>>;
