import { fileURLToPath } from "node:url";

/**
 * The `knightcode` executable of this installed package: a client spawns it
 * with `process.execPath` (`node <knightcodeBin> app-server`) and so needs
 * neither the PATH nor npm's shims. It lives here rather than in the client
 * because only this package knows where its own files were installed, and
 * importing it loads nothing of the server.
 */
export const knightcodeBin: string = fileURLToPath(new URL("../../bin/knightcode.js", import.meta.url));
