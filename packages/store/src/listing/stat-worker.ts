/** A folder's `.jsonl` names in readdir order, and for each its size, mtimeMs and ino (size -1 when it is gone or not a file). */
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
function look(names) {
  const stats = new Float64Array(Math.max(1, names.length * 3));
  for (let i = 0; i < names.length; i++) {
    let found;
    try {
      found = statSync(workerData + names[i], { throwIfNoEntry: false });
    } catch {}
    const ok = found !== undefined && found.isFile();
    stats[3 * i] = ok ? found.size : -1;
    stats[3 * i + 1] = ok ? found.mtimeMs : 0;
    stats[3 * i + 2] = ok ? found.ino : 0;
  }
  parentPort.postMessage({ names: names.join("\\0"), stats }, [stats.buffer]);
}
let listed;
try {
  listed = readdirSync(workerData).filter((name) => name.endsWith(".jsonl"));
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

type Message = { names: string; stats: Float64Array } | { code?: string; message?: string };

/**
 * A big folder listed and statted on a worker thread: 100,000 stats are
 * several hundred milliseconds of system calls, which then run beside the
 * main thread's reading of the index instead of after it, and leave the
 * main thread free for other requests meanwhile. The worker lives for one
 * look; an abort terminates it. `dir` ends in the path separator. Worker
 * threads load with the first big folder: a small one's listing, the
 * first request of most new processes, does not wait for them.
 */
export async function lookInWorker(dir: string, signal?: AbortSignal): Promise<FolderLook> {
  const { Worker } = await import("node:worker_threads");
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    // Only short-lived garbage is made there (a Stats object per file): a small young generation keeps its memory small.
    const worker = new Worker(LOOK, { eval: true, workerData: dir, stdout: true, stderr: true, resourceLimits: { maxYoungGenerationSizeMb: 2 } });
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
    worker.once("message", (message: Message) => {
      if (!("stats" in message)) return settle(() => reject(new LookFailed(message.code, message.message ?? "readdir failed")));
      const names = message.names === "" ? [] : message.names.split("\0");
      settle(() => resolve({ names, stats: message.stats }));
    });
    worker.once("error", (error) => settle(() => reject(error)));
    worker.once("exit", (code) => settle(() => reject(new Error(`the folder's stat worker exited (${code}) before answering`))));
  });
}
