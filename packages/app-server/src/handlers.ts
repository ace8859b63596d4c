import { ProtocolSchema, type ClientRequestMethod } from "@knightcode/app-server-protocol";
import type { Handler, HandlerTable } from "./rpc/handler.js";
import { lifecycleHandlers } from "./lifecycle/handlers.js";
import { payloadHandlers } from "./payloads/handlers.js";
import type { ThreadHandler } from "./threads/thread-handler.js";

/** Answered at once, before the thread layer exists. */
const eager = { ...lifecycleHandlers, ...payloadHandlers } satisfies Partial<HandlerTable>;

/** Every other method needs the thread layer (the agent, its tools, TypeBox), which loads on first use. */
export type ThreadLayerMethod = Exclude<ClientRequestMethod, keyof typeof eager>;

let threadLayer: Promise<typeof import("./thread-layer.js")> | undefined;

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

/**
 * Every client request's handler, by method: the eager ones, and for each
 * other method of the protocol a stub that loads the thread layer and hands
 * over. Each domain folder exports its own map (`threads/handlers.ts`,
 * `turns/handlers.ts`, ...), and its files are named after the methods.
 */
export const handlers = Object.fromEntries(
  (ProtocolSchema.load().methods("clientRequests") as ClientRequestMethod[]).map((method) => [
    method,
    isEager(method) ? eager[method] : fromThreadLayer(method),
  ]),
) as HandlerTable;
