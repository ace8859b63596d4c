import type { BeforeToolCall } from "../run/session-options.js";

/** What a thread without an approval gate runs: nothing. */
export const refuseWithoutGate: BeforeToolCall = async () => ({ block: true, reason: "This thread has no approval gate, so no tool call may run." });

/** The gate of a thread that runs every tool call without asking: headless runs and tests that say so. */
export const allowAllToolCalls: BeforeToolCall = async () => undefined;
