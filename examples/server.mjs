// Where the examples find `knightcode`: the repository's own build, run with
// this Node. Outside the repository, use the command `knightcode` instead.
import { fileURLToPath } from "node:url";

export const SERVER = {
  command: process.execPath,
  args: [fileURLToPath(new URL("../packages/cli/bin/knightcode.js", import.meta.url)), "app-server"],
};
