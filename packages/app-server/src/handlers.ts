import type { HandlerTable } from "./rpc/handler.js";
import { diagnostics } from "./lifecycle/diagnostics.js";
import { initialize } from "./lifecycle/initialize.js";

/** Every client request's handler, by method. */
export const handlers: HandlerTable = {
  initialize,
  "server/diagnostics": diagnostics,
};
