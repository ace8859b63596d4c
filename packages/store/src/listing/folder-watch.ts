import { statSync, watch, type FSWatcher } from "node:fs";
import { basename } from "node:path";
import { nextTurn } from "@knightcode/system/util/next-turn";

/**
 * The names in a sessions folder that changed since the last look, from the
 * kernel's file events (inotify): a warm listing then stats those names
 * instead of every transcript. Only on Linux, where events name the file
 * and arrive in order. Anything doubtful - an event without a name, an
 * error, the folder replaced - makes the watch unusable, and the listing
 * falls back to statting everything.
 */
export class FolderWatch {
  private dirty = new Set<string>();
  private broken = false;

  private constructor(
    private readonly dir: string,
    private readonly watcher: FSWatcher,
    private readonly ino: number,
  ) {
    watcher.on("error", () => this.breakDown());
  }

  /** A watch on `dir`, or undefined where file events cannot be trusted or a watch cannot be had. */
  static start(dir: string): FolderWatch | undefined {
    if (process.platform !== "linux") return undefined;
    try {
      const ino = statSync(dir).ino;
      let self: FolderWatch | undefined;
      const watcher = watch(dir, { persistent: false }, (_event, name) => self?.note(name));
      self = new FolderWatch(dir, watcher, ino);
      return self;
    } catch {
      return undefined;
    }
  }

  /** An event without a name, or one about the folder itself (deleted, moved, its attributes changed), ends the watch. */
  private note(name: string | Buffer | null): void {
    if (name === null || name === undefined || String(name) === basename(this.dir)) this.breakDown();
    else this.dirty.add(String(name));
  }

  private breakDown(): void {
    this.broken = true;
    this.watcher.close();
  }

  /** Forgets what changed so far: a full look is about to cover it. */
  reset(): void {
    this.dirty = new Set();
  }

  /**
   * The names that changed since the last call, once the events already
   * queued in the kernel were read; undefined when the watch can no longer
   * be trusted. Two immediates make sure a poll of the event loop ran in
   * between, whatever phase the caller runs in: a change that happened
   * before this call is never missed.
   */
  async changes(): Promise<Set<string> | undefined> {
    await nextTurn();
    await nextTurn();
    if (this.broken) return undefined;
    try {
      if (statSync(this.dir).ino !== this.ino) {
        this.breakDown();
        return undefined;
      }
    } catch {
      this.breakDown();
      return undefined;
    }
    const changed = this.dirty;
    this.dirty = new Set();
    return changed;
  }

  get usable(): boolean {
    return !this.broken;
  }

  close(): void {
    this.breakDown();
  }
}
