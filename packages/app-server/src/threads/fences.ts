/**
 * Per-thread ordering of the operations that move or remove a transcript
 * (archive, unarchive, delete) against loads and unloads: a fenced operation
 * runs after the load or unload under way when it was asked for, and loads
 * asked for later wait for it.
 */
export class ThreadFences {
  /** Archive, unarchive and delete of one thread, one at a time. */
  private readonly fences = new Map<string, Promise<unknown>>();
  /** Threads between unload and their released lock. */
  private readonly unloading = new Map<string, Promise<void>>();

  /** Runs `work` for a thread alone, after `loadBefore` (a load under way) and any unload or fenced work before it. */
  fenced<T>(threadId: string, loadBefore: Promise<unknown> | undefined, work: () => Promise<T>): Promise<T> {
    const previous = this.fences.get(threadId) ?? Promise.resolve();
    const run = async () => {
      await loadBefore?.catch(() => undefined);
      await this.unloading.get(threadId);
      return work();
    };
    const next = previous.then(run, run);
    trackUntilSettled(this.fences, threadId, next);
    return next;
  }

  /** What a load of the thread must wait for first: fenced work, then an unload's release of the lock. */
  async beforeLoad(threadId: string): Promise<void> {
    await this.fences.get(threadId);
    await this.unloading.get(threadId);
  }

  /** Records an unload under way until it settles. */
  unloadStarted(threadId: string, released: Promise<void>): void {
    trackUntilSettled(this.unloading, threadId, released);
  }

  /** Waits until a thread being unloaded has released its transcript. */
  async unloaded(threadId: string): Promise<void> {
    await this.unloading.get(threadId);
  }
}

/** Keeps `work`'s settling (never its failure) under `key` until it settles, unless newer work took the key. */
function trackUntilSettled(map: Map<string, Promise<unknown>>, key: string, work: Promise<unknown>): void {
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  map.set(key, settled);
  void settled.then(() => {
    if (map.get(key) === settled) map.delete(key);
  });
}
