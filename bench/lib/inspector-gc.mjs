// A full garbage collection in another Node process, through its inspector
// (started with --inspect=127.0.0.1:0). The server has no method for it, and
// `heapUsed` of an idle process still counts whatever garbage the last
// collection left, so only a forced collection separates a leak from litter.
import WebSocket from "ws";

/** The inspector's WebSocket address, from the line Node prints on stderr. */
export function inspectorUrl(stderrText) {
  return /Debugger listening on (ws:\/\/\S+)/.exec(stderrText)?.[1];
}

/** Connects to the inspector at `url`; `collectGarbage()` resolves once the collection is done; `evaluate()` reads a value in the process. */
export async function connectInspector(url) {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  const pending = new Map();
  let nextId = 0;
  socket.on("message", (data) => {
    const message = JSON.parse(String(data));
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  });
  const failAll = (error) => {
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  socket.on("close", () => failAll(new Error("the inspector connection closed")));
  socket.on("error", failAll);
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => {
      if (socket.readyState !== WebSocket.OPEN) return reject(new Error("the inspector connection is closed"));
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    collectGarbage: () => call("HeapProfiler.collectGarbage"),
    /** Runs `work` under the CPU profiler; answers the profile (a .cpuprofile document). */
    profile: async (work) => {
      await call("Profiler.enable");
      await call("Profiler.setSamplingInterval", { interval: 200 });
      await call("Profiler.start");
      await work();
      return (await call("Profiler.stop")).profile;
    },
    /** Evaluates an expression in the process and answers its value (JSON-able). */
    evaluate: async (expression) => {
      const answer = await call("Runtime.evaluate", { expression, returnByValue: true });
      if (answer.exceptionDetails) throw new Error(answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text);
      return answer.result.value;
    },
    close() {
      // A session left open would make a process whose loop empties wait for the debugger to leave.
      socket.close();
    },
  };
}
