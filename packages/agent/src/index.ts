/**
 * The package's API, in two halves. Only `export *` here: once a barrel's
 * own named re-export is used, esbuild makes every module the barrel names
 * part of the importer's chunk, and the server's first listing would load
 * the whole agent run (its tools, TypeBox, extensions) to list threads.
 */
export * from "./api/core.js";
export * from "./api/agent-run.js";
