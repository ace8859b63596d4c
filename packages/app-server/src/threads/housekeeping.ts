import type { Logger } from "../host/log.js";
import type { LoadedThread } from "./loaded-thread.js";

export interface HousekeepingOptions {
  /** How long a thread without subscribers or work stays loaded. */
  idleUnloadMs: number;
  loaded(): Iterable<LoadedThread>;
  unload(thread: LoadedThread): Promise<void>;
  log: Logger;
}

/**
 * Now and then, while any thread is loaded: unloads threads nobody has
 * watched or used for the idle time, and notices a transcript another
 * process took over. The timer stops itself once nothing is loaded and never
 * keeps the process alive.
 */
export class Housekeeping {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: HousekeepingOptions) {}

  /** A thread loaded: make sure the rounds run. */
  watch(): void {
    if (this.timer || this.stopped) return;
    const every = Math.max(10, Math.min(5_000, Math.floor(this.options.idleUnloadMs / 4)));
    this.timer = setInterval(() => this.round(), every);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private round(): void {
    const now = Date.now();
    let any = false;
    for (const thread of this.options.loaded()) {
      any = true;
      if (thread.lostOwnership()) continue;
      const since = thread.idleSince();
      if (since === undefined || now - since < this.options.idleUnloadMs) continue;
      this.options.log.info(`thread ${thread.id} unloads after ${now - since} ms without subscribers or work`);
      this.options.unload(thread).catch((error: unknown) => this.options.log.error(`unloading thread ${thread.id}`, error));
    }
    if (!any) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
