import { diagnostics } from "./diagnostics.js";
import { initialize } from "./initialize.js";

/** The handshake and diagnostics: answered without loading the thread layer. */
export const lifecycleHandlers = {
  initialize,
  "server/diagnostics": diagnostics,
};
