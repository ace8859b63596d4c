/**
 * Waits for a condition, polling, with a deadline: a test waits for what it
 * needs, never for time to pass. Resolves with the probe's first value that
 * is neither undefined nor false. A probe that returns a promise is refused,
 * by type and at run time: the promise itself would count as the condition
 * met at once (waitUntilAsync awaits each look).
 */
export async function waitUntil<T>(what: string, probe: () => (T & { then?: never }) | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (isThenable(value)) throw new TypeError(`waitUntil(${JSON.stringify(what)}): the probe returned a promise; use waitUntilAsync`);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** waitUntil for a probe that has to ask (the server, a page) before it knows: one look at a time, each awaited. */
export async function waitUntilAsync<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function isThenable(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** A promise the test resolves when it chooses: a scripted reply's `gate`, say. */
export function held(): { gate: Promise<void>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { gate, release };
}
