export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

/** Where the limit's timers come from: real ones, or a test's clock that fires them by hand. */
export interface HookClock {
  /** Calls `fire` once `ms` have passed; the function returned cancels it. */
  after(ms: number, fire: () => void): () => void;
}

export const realHookClock: HookClock = {
  after(ms, fire) {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};

/** How one handler ended. */
export type HandlerOutcome<T> =
  | { kind: "returned"; value: T | undefined }
  | { kind: "threw"; error: unknown }
  | { kind: "timedOut"; limitMs: number }
  | { kind: "interrupted" };

export interface HandlerLimits {
  limitMs: number;
  /** The turn's signal: an interrupt never waits for a handler. */
  signal?: AbortSignal;
  clock?: HookClock;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/**
 * Runs one handler and waits for it at most `limitMs`, and never past an
 * interrupt. A handler that does not finish in time is abandoned: the
 * waiting stops and whatever it settles with later is dropped, including a
 * rejection, which is caught here so it never surfaces as unhandled. The
 * timer and the abort listener go as soon as the handler or the limit wins.
 */
export function runHandler<T>(handler: () => T | PromiseLike<T>, limits: HandlerLimits): Promise<HandlerOutcome<T>> {
  let value: T | PromiseLike<T>;
  try {
    value = handler();
  } catch (error) {
    return Promise.resolve({ kind: "threw", error });
  }
  if (!isThenable(value)) return Promise.resolve({ kind: "returned", value });
  const { signal, limitMs } = limits;
  if (signal?.aborted) {
    Promise.resolve(value).catch(() => undefined);
    return Promise.resolve({ kind: "interrupted" });
  }
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: HandlerOutcome<T>) => {
      if (settled) return;
      settled = true;
      cancelTimer();
      signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const onAbort = () => settle({ kind: "interrupted" });
    const cancelTimer = (limits.clock ?? realHookClock).after(limitMs, () => settle({ kind: "timedOut", limitMs }));
    signal?.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(value).then(
      (result) => settle({ kind: "returned", value: result }),
      (error: unknown) => settle({ kind: "threw", error }),
    );
  });
}
