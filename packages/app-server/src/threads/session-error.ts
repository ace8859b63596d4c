/** Moved to rpc/; this file goes once every importer names rpc/session-error.js. */
export { sessionError } from "../rpc/session-error.js";
