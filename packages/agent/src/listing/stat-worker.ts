import { statSync, type Stats } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import { Worker } from "node:worker_threads";

/** A folder's `.jsonl` names in readdir order, and for each its size, mtimeMs and ino (size -1 when it is gone or not a file). */
export interface FolderLook {
  names: string[];
  stats: Float64Array;
}

/** Names claimed at once by either thread. */
const CHUNK = 512;

/**
 * The worker's code, evaluated rather than loaded from a file so that it
 * survives bundling. It lists the folder and hands the names over (joined
 * by NUL: one string to copy, not 100,000) with a shared buffer for the
 * stats and a shared counter. Then it stats chunks of names, claimed from
 * the counter, until none is left; the main thread claims chunks from the
 * same counter once it is free, so the stats split between two cores.
 */
const LOOK = `
const { parentPort, workerData } = require("node:worker_threads");
const { readdirSync, statSync } = require("node:fs");
function look(names) {
const stats = new Float64Array(new SharedArrayBuffer(Math.max(1, names.length * 3 * 8)));
const next = new Int32Array(new SharedArrayBuffer(4));
parentPort.postMessage({ names: names.join("\\0"), stats, next });
for (let from = Atomics.add(next, 0, workerData.chunk); from < names.length; from = Atomics.add(next, 0, workerData.chunk)) {
  const to = Math.min(names.length, from + workerData.chunk);
  for (let i = from; i < to; i++) {
    let found;
    try {
      found = statSync(workerData.dir + names[i], { throwIfNoEntry: false });
    } catch {}
    const ok = found !== undefined && found.isFile();
    stats[3 * i] = ok ? found.size : -1;
    stats[3 * i + 1] = ok ? found.mtimeMs : 0;
    stats[3 * i + 2] = ok ? found.ino : 0;
  }
}
parentPort.postMessage({ done: true });
}
let listed;
try {
  listed = readdirSync(workerData.dir).filter((name) => name.endsWith(".jsonl"));
} catch (error) {
  parentPort.postMessage({ code: error.code, message: error.message });
}
if (listed !== undefined) look(listed);
`;

/** Readdir failed in the worker: the error's code and message, as the main thread would have seen them. */
export class LookFailed extends Error {
  constructor(
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

type Message = { names: string; stats: Float64Array; next: Int32Array } | { done: true } | { code?: string; message?: string };

/** Stats the names of `from`..`to` here, as the worker does there. */
function statChunk(dir: string, names: readonly string[], stats: Float64Array, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    let found: Stats | undefined;
    try {
      found = statSync(dir + names[i], { throwIfNoEntry: false });
    } catch {
      found = undefined;
    }
    if (found === undefined || !found.isFile()) {
      stats[3 * i] = -1;
      continue;
    }
    stats[3 * i] = found.size;
    stats[3 * i + 1] = found.mtimeMs;
    stats[3 * i + 2] = found.ino;
  }
}

/**
 * A big folder's look, listed and statted with a worker thread: 100,000
 * stats are several hundred milliseconds of system calls, which start at
 * once, beside the main thread's reading of the index, and which the main
 * thread joins (`help`) once it is free. The worker lives for one look; an
 * abort terminates it. `dir` ends in the path separator.
 */
export class WorkerLook {
  /** Settles once the worker has listed the folder. */
  private readonly listed: Promise<{ names: string[]; stats: Float64Array; next: Int32Array }>;
  private readonly finished: Promise<void>;
  private readonly worker: Worker;

  constructor(
    private readonly dir: string,
    private readonly signal?: AbortSignal,
  ) {
    this.worker = new Worker(LOOK, { eval: true, workerData: { dir, chunk: CHUNK }, stdout: true, stderr: true });
    let listed!: (value: { names: string[]; stats: Float64Array; next: Int32Array }) => void;
    let finished!: () => void;
    let fail!: (error: unknown) => void;
    this.listed = new Promise((resolve, reject) => {
      listed = resolve;
      fail = reject;
    });
    this.finished = new Promise((resolve, reject) => {
      finished = resolve;
      const previous = fail;
      fail = (error) => {
        previous(error);
        reject(error);
      };
    });
    // Whoever awaits only one of them must not leave the other's rejection unhandled.
    this.listed.catch(() => undefined);
    this.finished.catch(() => undefined);
    const stop = (error?: unknown) => {
      signal?.removeEventListener("abort", onAbort);
      void this.worker.terminate();
      if (error !== undefined) fail(error);
    };
    const onAbort = () => stop(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    this.worker.on("message", (message: Message) => {
      if ("done" in message) {
        finished();
        stop();
      } else if ("names" in message) {
        listed({ names: message.names === "" ? [] : message.names.split("\0"), stats: message.stats, next: message.next });
      } else {
        stop(new LookFailed(message.code, message.message ?? "readdir failed"));
      }
    });
    this.worker.once("error", (error) => stop(error));
    this.worker.once("exit", (code) => stop(new Error(`the folder's stat worker exited (${code}) before answering`)));
  }

  /** The look: this thread stats chunks beside the worker, yielding between them, until every name is claimed. */
  async result(): Promise<FolderLook> {
    const { names, stats, next } = await this.listed;
    for (let from = Atomics.add(next, 0, CHUNK); from < names.length; from = Atomics.add(next, 0, CHUNK)) {
      statChunk(this.dir, names, stats, from, Math.min(names.length, from + CHUNK));
      await nextTurn();
      this.signal?.throwIfAborted();
    }
    await this.finished;
    return { names, stats };
  }
}
