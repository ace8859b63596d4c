/**
 * The modules `knightcode app-server` needs before its first answer, and no
 * others: the CLI imports this instead of the package index so start-up
 * loads nothing it does not use.
 */
export { AppServer } from "./server.js";
export { ServerContext, type ServerContextOptions } from "./host/context.js";
export { StdioTransport } from "./transport/stdio.js";
export { sweepStaleSpools } from "./payloads/stale-spools.js";
export type { ProtocolOutput } from "./transport/stdout-guard.js";
