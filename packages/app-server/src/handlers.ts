import { ProtocolSchema, type ClientRequestMethod } from "@knightcode/app-server-protocol";
import type { Handler, HandlerTable } from "./rpc/handler.js";
import { lifecycleHandlers } from "./lifecycle/handlers.js";
import { payloadHandlers } from "./payloads/handlers.js";
import { searchHandlers } from "./search/handlers.js";
import type { CatalogHandler } from "./threads/catalog-handler.js";
import type { ThreadHandler } from "./threads/thread-handler.js";

/** Answered at once, before the thread layer exists. */
const eager = { ...lifecycleHandlers, ...payloadHandlers, ...searchHandlers } satisfies Partial<HandlerTable>;

/** Served from the threads on disk (listing-layer.ts): a client's first listing never waits for the agent. */
const LISTING_METHODS = ["thread/list", "thread/read"] as const;
export type ListingMethod = (typeof LISTING_METHODS)[number];

/** Every other method needs the thread layer (the agent, its tools, TypeBox), which loads on first use. */
export type ThreadLayerMethod = Exclude<ClientRequestMethod, keyof typeof eager | ListingMethod>;

let listingLayer: Promise<typeof import("./listing-layer.js")> | undefined;
let threadLayer: Promise<typeof import("./thread-layer.js")> | undefined;

function fromListingLayer<M extends ListingMethod>(method: M): Handler<M> {
  return async (params, ctx) => {
    listingLayer ??= import("./listing-layer.js");
    const [layer, catalog] = await Promise.all([listingLayer, ctx.server.catalog()]);
    const handler: CatalogHandler<M> = layer.listingHandlers[method];
    return handler(params, ctx, catalog);
  };
}

function fromThreadLayer<M extends ThreadLayerMethod>(method: M): Handler<M> {
  return async (params, ctx) => {
    threadLayer ??= import("./thread-layer.js");
    const [layer, threads] = await Promise.all([threadLayer, ctx.server.threads()]);
    const handler: ThreadHandler<M> = layer.threadLayerHandlers[method];
    return handler(params, ctx, threads);
  };
}

function isEager(method: ClientRequestMethod): method is keyof typeof eager {
  return Object.hasOwn(eager, method);
}

function isListing(method: ClientRequestMethod): method is ListingMethod {
  return (LISTING_METHODS as readonly string[]).includes(method);
}

/**
 * Every client request's handler, by method: the eager ones, the listing
 * ones, and for each other method of the protocol a stub that loads the
 * thread layer and hands over. Each domain folder exports its own map
 * (`threads/handlers.ts`, `turns/handlers.ts`, ...), and its files are named
 * after the methods.
 */
export const handlers = Object.fromEntries(
  (ProtocolSchema.load().methods("clientRequests") as ClientRequestMethod[]).map((method) => [
    method,
    isEager(method) ? eager[method] : isListing(method) ? fromListingLayer(method) : fromThreadLayer(method),
  ]),
) as HandlerTable;
