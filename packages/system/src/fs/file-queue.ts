import { FileLock } from "./file-lock.js";

/**
 * Writers of one file queue here first, then take the cross-process lock
 * beside it. The queues live on globalThis so that two copies of this module
 * in one process (a bundled and an unbundled import) still share them.
 */
const QUEUES = Symbol.for("knightcode.agent.fileQueues");

function queues(): Map<string, Promise<void>> {
  const holder = globalThis as { [QUEUES]?: Map<string, Promise<void>> };
  return (holder[QUEUES] ??= new Map());
}

export interface LockedEditOptions {
  /** Written into the lock file, for messages about who holds it. */
  purpose: string;
  /** How long to wait for another process's lock; an edit holds it for milliseconds. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/**
 * Runs `task` with exclusive access to `file`: first in this process (FIFO,
 * across every store instance), then across processes through `<file>.lock`.
 * `file` should be a resolved path so that all spellings share one queue.
 */
export async function withFileLock<T>(file: string, options: LockedEditOptions, task: () => T | Promise<T>): Promise<T> {
  const all = queues();
  const previous = all.get(file) ?? Promise.resolve();
  let finish!: () => void;
  const mine = new Promise<void>((resolve) => (finish = resolve));
  // Links only ever resolve, so a failed task never stalls the writers behind it.
  const tail = previous.then(() => mine);
  all.set(file, tail);
  try {
    await previous;
    options.signal?.throwIfAborted();
    const lock = await FileLock.acquireWithin(`${file}.lock`, options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS, options.purpose, options.signal);
    try {
      return await task();
    } finally {
      lock.release();
    }
  } finally {
    finish();
    if (all.get(file) === tail) all.delete(file);
  }
}
