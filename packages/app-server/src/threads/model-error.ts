/** Moved to rpc/; this file goes once every importer names rpc/model-error.js. */
export { modelError } from "../rpc/model-error.js";
