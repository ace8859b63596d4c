import { Worker } from "node:worker_threads";

/** A folder's `.jsonl` names in readdir order, and for each its size, mtimeMs and ino (all -1 when it is gone or not a file). */
export interface FolderLook {
  names: string[];
  stats: Float64Array;
}

/**
 * The worker's code, evaluated rather than loaded from a file so that it
 * survives bundling. It lists the folder, stats every transcript, and
 * answers with the names joined by NUL (one string to copy, not 100,000)
 * and the stats in a buffer it hands over.
 */
const LOOK = `
const { parentPort, workerData } = require("node:worker_threads");
const { readdirSync, statSync } = require("node:fs");
try {
  const names = readdirSync(workerData).filter((name) => name.endsWith(".jsonl"));
  const stats = new Float64Array(names.length * 3).fill(-1);
  for (let i = 0; i < names.length; i++) {
    let found;
    try {
      found = statSync(workerData + names[i], { throwIfNoEntry: false });
    } catch {}
    if (found === undefined || !found.isFile()) continue;
    stats[3 * i] = found.size;
    stats[3 * i + 1] = found.mtimeMs;
    stats[3 * i + 2] = found.ino;
  }
  parentPort.postMessage({ names: names.join("\\0"), stats }, [stats.buffer]);
} catch (error) {
  parentPort.postMessage({ code: error.code, message: error.message });
}
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

/**
 * Lists and stats a big folder on a worker thread: 100,000 stats are
 * several hundred milliseconds of system calls, which then run beside the
 * main thread's reading of the index instead of after it. The worker lives
 * for one look; an abort terminates it.
 */
export function lookInWorker(dir: string, signal?: AbortSignal): Promise<FolderLook> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOOK, { eval: true, workerData: dir, stdout: true, stderr: true });
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      void worker.terminate();
      done();
    };
    const onAbort = () => settle(() => reject(signal!.reason));
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (message: { names?: string; stats?: Float64Array; code?: string; message?: string }) => {
      if (message.stats === undefined) return settle(() => reject(new LookFailed(message.code, message.message ?? "readdir failed")));
      const names = message.names === "" ? [] : message.names!.split("\0");
      settle(() => resolve({ names, stats: message.stats! }));
    });
    worker.once("error", (error) => settle(() => reject(error)));
    worker.once("exit", (code) => settle(() => reject(new Error(`the folder's stat worker exited (${code}) before answering`))));
  });
}
