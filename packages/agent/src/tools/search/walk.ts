import { walkStream, type Entry } from "@nodelib/fs.walk";
import { readdir, type Dirent } from "node:fs";
import { errnoCode } from "../errors.js";
import { IgnoreRules } from "./ignore-rules.js";

export type { Entry } from "@nodelib/fs.walk";

export interface WalkOptions {
  signal?: AbortSignal;
  /**
   * Whether an entry is yielded and, for a directory, entered; `.git` never
   * is. Symbolic links are yielded as links, never followed (rg and fd do
   * the same without --follow).
   */
  keep: (entry: Entry, rules: IgnoreRules) => boolean;
  /** A directory or file that could not be read; the walk goes on without it. */
  onError?: (error: NodeJS.ErrnoException) => void;
}

/** Directories listed at once; more buys nothing on one disk. */
const CONCURRENCY = 8;
/** Entries found but not yet taken, past which listing pauses. */
const MAX_BUFFERED = 2048;

/**
 * The entries below `root`, with each directory's ignore files read before
 * its entries are judged. Found entries wait in a buffer until taken, and
 * listing pauses while it is full, so a slow consumer (grep reading every
 * file) never holds a whole home directory's names in memory. Breaking out
 * of the loop stops the walk.
 */
export async function* walk(root: string, options: WalkOptions): AsyncGenerator<Entry> {
  const rules = await IgnoreRules.forWalk(root);
  const demand = new Demand(MAX_BUFFERED);
  const kept = new WeakSet<Entry>();
  const stream = walkStream(root, {
    concurrency: CONCURRENCY,
    ...(options.signal ? { signal: options.signal } : {}),
    fs: {
      readdir: (path, _options, callback) => {
        listDirectory(path, rules, demand).then(
          (dirents) => callback(null, dirents),
          (error: NodeJS.ErrnoException) => callback(error, []),
        );
      },
    },
    entryFilter: (entry) => {
      if (entry.name === ".git" || !options.keep(entry, rules)) return false;
      kept.add(entry);
      demand.produced();
      return true;
    },
    deepFilter: (entry) => kept.has(entry),
    errorFilter: (error) => {
      // Abort reasons are not errno errors: they end the walk with an error.
      if (errnoCode(error) === undefined) return false;
      options.onError?.(error);
      return true;
    },
  });
  try {
    for await (const entry of stream) {
      demand.consumed();
      yield entry as Entry;
    }
  } finally {
    demand.close();
    stream.destroy();
  }
}

async function listDirectory(path: string, rules: IgnoreRules, demand: Demand): Promise<Dirent[]> {
  await demand.wait();
  const dirents = await new Promise<Dirent[]>((resolve, reject) =>
    readdir(path, { withFileTypes: true }, (error, found) => (error ? reject(error) : resolve(found))),
  );
  await rules.readDirectory(path, new Set(dirents.map((dirent) => dirent.name)));
  return dirents;
}

/** Counts entries between the walk and its consumer, holding the walk back while too many wait. */
class Demand {
  private buffered = 0;
  private closed = false;
  private waiters: (() => void)[] = [];

  constructor(private readonly max: number) {}

  produced(): void {
    this.buffered++;
  }

  consumed(): void {
    this.buffered--;
    if (this.buffered < this.max / 2) this.release();
  }

  wait(): Promise<void> {
    if (this.closed || this.buffered < this.max) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    this.release();
  }

  private release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
