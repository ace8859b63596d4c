import { LRUCache } from "lru-cache";
import type { Deadline } from "../lifecycle/shutdown.js";
import type { Listing, ListerResult } from "./lister.js";

/** Where the cache's time comes from: timers, or a test's hand. */
export interface SearchClock {
  /** Milliseconds, only ever compared with each other. */
  now(): number;
  after(ms: number): Deadline;
}

export const realSearchClock: SearchClock = {
  now: () => performance.now(),
  after(ms) {
    let timer: NodeJS.Timeout | undefined;
    // Unreferenced: a listing's expiry or deadline never keeps the process alive by itself.
    const promise = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms)).unref()));
    return { promise, cancel: () => clearTimeout(timer) };
  },
};

export interface ListingCacheOptions {
  clock: SearchClock;
  /** How long a complete listing answers for its folder. */
  ttlMs: number;
  /** Folders whose listings are kept; the least recently used goes first. */
  maxFolders: number;
  /** Listings running at once; the others wait their turn. */
  maxRunning: number;
  /** How long one listing may run. */
  timeoutMs: number;
  /** Lists a folder; must settle only once its process is gone. */
  list(cwd: string, signal: AbortSignal, deadline: Deadline): Promise<ListerResult>;
  /** A listing that failed part way: answered, not kept. */
  onPartial?(cwd: string, problem: string): void;
}

interface Waiter {
  resolve(listing: Listing): void;
  reject(error: unknown): void;
}

/** A listing asked for and not done: waiting for a turn, or running. */
interface Pending {
  readonly cwd: string;
  readonly waiters: Set<Waiter>;
  readonly controller: AbortController;
}

interface Kept {
  readonly listing: Listing;
  readonly listedAt: number;
  /** Drops the listing once its time is up, so that a server idle all day holds no old listing. */
  readonly expiry: Deadline;
}

/**
 * Folder listings shared by every search: a listing answers for its folder
 * for `ttlMs`; searches that ask while it runs wait for the same run; when
 * the last of them goes away, the run is stopped. Only complete listings
 * are kept.
 */
export class ListingCache {
  /** A listing's expiry is cancelled whenever it leaves: replaced, evicted, dropped or cleared. */
  private readonly kept: LRUCache<string, Kept>;
  private readonly pending = new Map<string, Pending>();
  private readonly queue: Pending[] = [];
  private readonly runs = new Set<Promise<void>>();
  private running = 0;
  private closedWith: { error: unknown } | undefined;

  constructor(private readonly options: ListingCacheOptions) {
    this.kept = new LRUCache<string, Kept>({ max: options.maxFolders, dispose: (kept) => kept.expiry.cancel() });
  }

  /** The folder's listing; rejects with the signal's reason as soon as it aborts. */
  get(cwd: string, signal: AbortSignal): Promise<Listing> {
    if (this.closedWith) return Promise.reject(this.closedWith.error);
    if (signal.aborted) return Promise.reject(signal.reason);
    const kept = this.fresh(cwd);
    if (kept) return Promise.resolve(kept);
    let entry = this.pending.get(cwd);
    if (!entry) {
      entry = { cwd, waiters: new Set(), controller: new AbortController() };
      this.pending.set(cwd, entry);
      this.queue.push(entry);
    }
    const pending = entry;
    return new Promise<Listing>((resolve, reject) => {
      const onAbort = (): void => {
        pending.waiters.delete(waiter);
        reject(signal.reason);
        if (pending.waiters.size === 0) this.abandon(pending);
      };
      const waiter: Waiter = {
        resolve: (listing) => {
          signal.removeEventListener("abort", onAbort);
          resolve(listing);
        },
        reject: (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      pending.waiters.add(waiter);
      signal.addEventListener("abort", onAbort, { once: true });
      this.startWaiting();
    });
  }

  /** Listings running or waiting to run: for tests and diagnostics. */
  get activity(): { running: number; waiting: number; kept: number } {
    return { running: this.running, waiting: this.queue.length, kept: this.kept.size };
  }

  /**
   * Every search still waiting gets `error`, every running listing is
   * stopped; resolves once their processes are gone. Later searches get
   * `error` at once.
   */
  async close(error: unknown): Promise<void> {
    this.closedWith ??= { error };
    this.queue.length = 0;
    for (const entry of [...this.pending.values()]) {
      for (const waiter of entry.waiters) waiter.reject(this.closedWith.error);
      entry.waiters.clear();
      this.abandon(entry);
    }
    this.kept.clear();
    await Promise.all([...this.runs]);
  }

  private fresh(cwd: string): Listing | undefined {
    const kept = this.kept.get(cwd);
    if (!kept) return undefined;
    if (this.options.clock.now() - kept.listedAt >= this.options.ttlMs) {
      this.kept.delete(cwd);
      return undefined;
    }
    return kept.listing;
  }

  private keep(cwd: string, listing: Listing): void {
    const expiry = this.options.clock.after(this.options.ttlMs);
    const kept: Kept = { listing, listedAt: this.options.clock.now(), expiry };
    this.kept.set(cwd, kept);
    void expiry.promise.then(() => {
      if (this.kept.peek(cwd) === kept) this.kept.delete(cwd);
    });
  }

  /** Nobody waits for this listing any more: it leaves the queue, or its process is stopped. */
  private abandon(entry: Pending): void {
    if (this.pending.get(entry.cwd) === entry) this.pending.delete(entry.cwd);
    const queued = this.queue.indexOf(entry);
    if (queued !== -1) this.queue.splice(queued, 1);
    entry.controller.abort(new Error("no search waits for this listing"));
  }

  private startWaiting(): void {
    while (this.running < this.options.maxRunning && this.queue.length > 0) this.start(this.queue.shift()!);
  }

  private start(entry: Pending): void {
    this.running++;
    const deadline = this.options.clock.after(this.options.timeoutMs);
    const run = this.options
      .list(entry.cwd, entry.controller.signal, deadline)
      .then(
        (result) => this.settle(entry, result),
        (error: unknown) => this.fail(entry, error),
      )
      .finally(() => {
        deadline.cancel();
        this.running--;
        this.runs.delete(run);
        if (!this.closedWith) this.startWaiting();
      });
    this.runs.add(run);
  }

  private settle(entry: Pending, result: ListerResult): void {
    if (entry.controller.signal.aborted) return;
    this.pending.delete(entry.cwd);
    if (result.complete) {
      this.keep(entry.cwd, result.listing);
    } else {
      this.options.onPartial?.(entry.cwd, result.problem ?? "");
    }
    for (const waiter of entry.waiters) waiter.resolve(result.listing);
  }

  private fail(entry: Pending, error: unknown): void {
    if (entry.controller.signal.aborted) return;
    this.pending.delete(entry.cwd);
    for (const waiter of entry.waiters) waiter.reject(error);
  }
}
