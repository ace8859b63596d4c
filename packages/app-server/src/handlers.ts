import type { ClientRequestMethod } from "@knightcode/app-server-protocol";
import type { Handler, HandlerTable, MethodModule, MethodSource } from "./rpc/handler.js";
import { methodTable } from "./methods/table.js";

type Loaded = { handler?: Handler<ClientRequestMethod>; loading?: Promise<Handler<ClientRequestMethod>> };

const loaded = new Map<ClientRequestMethod, Loaded>();

function load(method: ClientRequestMethod, state: Loaded): Promise<Handler<ClientRequestMethod>> {
  const source = methodTable[method] as MethodSource<ClientRequestMethod>;
  state.loading ??= (typeof source === "function" ? source() : Promise.resolve(source)).then((module: MethodModule<ClientRequestMethod>) => {
    state.handler = module.handler;
    return module.handler;
  });
  return state.loading;
}

/**
 * A method's handler as the dispatcher calls it: the module under
 * `methods/` loads on the method's first request, and once it has, the
 * handler runs at once, so a synchronous answer still goes out in order.
 */
function served<M extends ClientRequestMethod>(method: M): Handler<M> {
  const source = methodTable[method] as MethodSource<M>;
  if (typeof source !== "function") return source.handler;
  const state: Loaded = {};
  loaded.set(method, state);
  return ((params, ctx) => {
    if (state.handler) return state.handler(params, ctx);
    return load(method, state).then((handler) => handler(params, ctx));
  }) as Handler<M>;
}

/** Every client request's handler, by method; the table is generated from the files under `methods/` (scripts/methods.mjs). */
export const handlers = Object.fromEntries(Object.keys(methodTable).map((method) => [method, served(method as ClientRequestMethod)])) as HandlerTable;

/** Loads the modules of methods a client is about to send, so that their first request does not wait for the file. */
export async function loadHandlers(methods: readonly ClientRequestMethod[]): Promise<void> {
  await Promise.all(
    methods.map((method) => {
      const state = loaded.get(method);
      return state ? load(method, state) : undefined;
    }),
  );
}
