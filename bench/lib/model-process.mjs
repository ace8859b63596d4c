// The scripted model's process (model-child.mjs), asked over IPC: each call
// answers the reply it gets.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MODEL = fileURLToPath(new URL("./model-child.mjs", import.meta.url));

/** Replies of `deltas` deltas each, paced by `chunkDelayMs` (0: as fast as the socket takes them). */
export function modelProcess({ deltas, chunkDelayMs = 0 }) {
  const child = spawn(process.execPath, [MODEL], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const waiting = [];
  child.on("message", (message) => waiting.shift()?.(message));
  const ask = (message) =>
    new Promise((resolve) => {
      waiting.push(resolve);
      if (message) child.send(message);
    });
  return {
    /** Resolves with {baseUrl, modelsJson} once the model listens. */
    ready: ask(undefined),
    /** Queues n replies held after their first chunk; answers how many requests came so far. */
    hold: async (n) => (await ask({ hold: n, deltas, chunkDelayMs })).held,
    /** Queues a reply starting n sub-agents, their n held replies and the last answer; answers how many requests came so far. */
    delegate: async (n) => (await ask({ delegate: n, deltas, chunkDelayMs })).held,
    waitFor: (count) => ask({ waitFor: count }),
    open: () => ask({ open: true }),
    close: () => {
      child.send({ close: true });
      return new Promise((resolve) => child.once("exit", resolve));
    },
  };
}
