import { rm } from "node:fs/promises";

/** How many of a thread's spill files are kept: each may hold up to 256 MiB. */
const DEFAULT_KEEP = 4;

export interface SpillFilesOptions {
  /** How many of the newest files stay; older ones are deleted as newer ones come. */
  keep?: number;
  /** Told of a file that could not be deleted. */
  onError?: (path: string, error: unknown) => void;
}

/**
 * The files one thread's bash calls wrote their whole output to. The model
 * is told their paths and may read or grep them, in this turn or a later
 * one, so they stay while the thread is loaded; but only the newest few,
 * and none once the thread unloads. A file that arrives after that is
 * deleted at once.
 */
export class SpillFiles {
  private readonly files: string[] = [];
  private readonly keep: number;
  private disposed = false;
  private readonly removals = new Set<Promise<void>>();

  constructor(private readonly options: SpillFilesOptions = {}) {
    this.keep = options.keep ?? DEFAULT_KEEP;
  }

  /** The files kept now, oldest first. */
  get paths(): readonly string[] {
    return this.files;
  }

  /** Takes ownership of a file just written; deletes what it supersedes. */
  add(path: string): void {
    if (this.disposed) {
      this.remove(path);
      return;
    }
    this.files.push(path);
    while (this.files.length > this.keep) this.remove(this.files.shift()!);
  }

  /** Deletes every file; later ones are deleted as they come. Resolves once all are gone. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const path of this.files.splice(0)) this.remove(path);
    await Promise.all(this.removals);
  }

  private remove(path: string): void {
    const removal = rm(path, { force: true })
      .catch((error: unknown) => this.options.onError?.(path, error))
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }
}
