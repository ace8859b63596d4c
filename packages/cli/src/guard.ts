import { claimStdout } from "@knightcode/app-server/stdout-guard";

/** Claimed before any other module runs, so nothing but the protocol reaches stdout. */
export const protocolOutput = claimStdout();
