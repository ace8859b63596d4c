/**
 * Resolves in the check phase of the event loop's next turn, so that input
 * and timers queued meanwhile run first. The promise form of
 * `setImmediate`, without node:timers/promises, which a first thread
 * listing would otherwise load for this alone.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
