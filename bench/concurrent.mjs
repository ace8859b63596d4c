#!/usr/bin/env node
// Many turns at once: 1, 10 and 50 threads each streaming a reply of
// --deltas deltas from the scripted model at the same moment, relayed by
// one server to one WebSocket connection for all the threads, and to one
// connection per thread. Every reply is held after its first chunk until
// all the threads' model requests have arrived, then released together.
// Per round:
//   aggregateDeltasPerSec   every delta of the round / release -> last delta
//   firstDeltaMs p50/p99    release -> a thread's first delta, over threads
//   interDeltaMs p50/p99    gaps between a thread's deltas, over all threads
//   completedMs p50/p99     release -> a thread's turn/completed (its end
//                           entry written and synced), over threads
//   eventLoopDelayMs        the server's event-loop delay during the round
//                           (perf_hooks histogram, read through the inspector)
//   serverCpuMsPer1000      the server's user+system CPU per 1,000 deltas
// Beside each, the floor: a bare Node process relaying the same streams
// (bench/lib/bare-relay.mjs: fetch, parse the events, one JSON line per
// delta on stdout), in the same run. The scripted model runs in a process
// of its own (bench/lib/model-child.mjs), so writing fifty replies at once
// does not delay the bench's reading of what arrives.
// Prints one JSON document. Needs a build (npm run build).
//
//   node bench/concurrent.mjs [--threads 1,10,50] [--deltas 2000] [--reps 1] [--chunk-delay-ms 0] [--out result.json]
//                             [--profile round.cpuprofile [--profile-connections one|perThread]]
//
// --chunk-delay-ms paces each reply (a pause between its chunks, as a model
// streams); 0, the default, writes each reply as fast as the socket takes it.
//
// --profile writes the server's CPU profile of the largest round on one connection
// (or, with --profile-connections perThread, on one connection per thread).
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startListeningServer } from "./lib/listening-server.mjs";
import { modelProcess } from "./lib/model-process.mjs";
import { flag, machine, median, percentile } from "./lib/measure.mjs";

const BARE = fileURLToPath(new URL("./lib/bare-relay.mjs", import.meta.url));
const TOKEN = "concurrent-bench-token-0123456789abcdef";

const THREADS = flag("--threads", "1,10,50").split(",").map(Number);
const DELTAS = Number(flag("--deltas", "2000"));
const REPS = Number(flag("--reps", "1"));
/** 0: each reply is written as fast as the socket takes it (a burst); more paces it, as a model streams. */
const CHUNK_DELAY_MS = Number(flag("--chunk-delay-ms", "0"));
const GOALS = { aggregateAt50VsSingle: ">= 0.8", firstDeltaP99At50Ms: "< 100", eventLoopDelayP99At50Ms: "< 20" };

/** User plus system CPU time of a process, in ms, from /proc (clock ticks of 10 ms). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** What a round saw: per thread, when each delta arrived. */
function figures(arrivals, releasedAt, total) {
  const all = [...arrivals.values()];
  const last = Math.max(...all.map((times) => times.at(-1) ?? releasedAt));
  const gaps = [];
  for (const times of all) for (let i = 1; i < times.length; i++) gaps.push(times[i] - times[i - 1]);
  const firsts = all.map((times) => times[0] - releasedAt);
  return {
    deltasSeen: all.reduce((n, times) => n + times.length, 0),
    deltasExpected: total,
    aggregateDeltasPerSec: Math.round(total / ((last - releasedAt) / 1000)),
    firstDeltaMs: { p50: percentile(firsts, 50), p99: percentile(firsts, 99) },
    interDeltaMs: { p50: percentile(gaps, 50), p99: percentile(gaps, 99) },
  };
}

/** Per thread, release -> its turn/completed: the reply relayed, then the end written, synced and announced. */
function completions(completedAt, releasedAt) {
  const times = [...completedAt.values()].map((at) => at - releasedAt);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

const started = machine();
const model = modelProcess({ deltas: DELTAS, chunkDelayMs: CHUNK_DELAY_MS });
const { baseUrl, modelsJson } = await model.ready;
// The inspector reads the event loop's delay inside the server; nothing is paused or traced.
const server = await startListeningServer({ name: "concurrent", modelsJson, token: TOKEN });
const { cwd, inspector } = server;

try {
  await inspector.evaluate(
    "globalThis.__benchDelay = process.getBuiltinModule('node:perf_hooks').monitorEventLoopDelay({ resolution: 1 }), globalThis.__benchDelay.enable(), true",
  );
  const connect = () => server.connect();
  // A first turn warms the server (module loading, the first model request) so round one does not pay it.
  await serverRound(connect, 1, "one", { warmUp: true });
  const rounds = [];
  const floor = [];
  for (const threads of THREADS) {
    for (let rep = 0; rep < REPS; rep++) {
      for (const connections of ["one", "perThread"]) rounds.push(await serverRound(connect, threads, connections));
      floor.push(await floorRound(threads));
    }
  }
  const at = (threads, connections) => rounds.filter((r) => r.threads === threads && r.connections === connections);
  const summary = {};
  for (const threads of THREADS) {
    for (const connections of ["one", "perThread"]) {
      const list = at(threads, connections);
      summary[`${threads}/${connections}`] = {
        aggregateDeltasPerSec: median(list.map((r) => r.aggregateDeltasPerSec)),
        firstDeltaP99Ms: median(list.map((r) => r.firstDeltaMs.p99)),
        interDeltaP99Ms: median(list.map((r) => r.interDeltaMs.p99)),
        completedP99Ms: median(list.map((r) => r.completedMs.p99)),
        eventLoopDelayP99Ms: median(list.map((r) => r.eventLoopDelayMs.p99)),
        serverCpuMsPer1000Deltas: median(list.map((r) => r.serverCpuMsPer1000Deltas)),
      };
    }
    const bare = floor.filter((r) => r.threads === threads);
    summary[`${threads}/floor`] = {
      aggregateDeltasPerSec: median(bare.map((r) => r.aggregateDeltasPerSec)),
      firstDeltaP99Ms: median(bare.map((r) => r.firstDeltaMs.p99)),
      interDeltaP99Ms: median(bare.map((r) => r.interDeltaMs.p99)),
    };
  }
  const single = summary[`${THREADS[0]}/one`]?.aggregateDeltasPerSec;
  const most = THREADS.at(-1);
  const verdict = Object.fromEntries(
    ["one", "perThread"].map((connections) => {
      const s = summary[`${most}/${connections}`];
      return [
        connections,
        {
          threads: most,
          aggregateVsSingle: single ? +(s.aggregateDeltasPerSec / single).toFixed(2) : null,
          vsFloor: +(s.aggregateDeltasPerSec / summary[`${most}/floor`].aggregateDeltasPerSec).toFixed(2),
          firstDeltaP99Ms: s.firstDeltaP99Ms,
          eventLoopDelayP99Ms: s.eventLoopDelayP99Ms,
        },
      ];
    }),
  );
  const result = {
    bench: "concurrent",
    ...started,
    deltas: DELTAS,
    chunkDelayMs: CHUNK_DELAY_MS,
    reps: REPS,
    goals: GOALS,
    verdict,
    summary,
    rounds,
    floor,
  };
  const text = JSON.stringify(result, null, 2);
  const out = flag("--out");
  if (out) writeFileSync(out, `${text}\n`);
  console.log(text);
} finally {
  await server.close();
  await model.close();
}

/** N threads' turns at once through the server, on one connection or one each. */
async function serverRound(connect, threads, connections, { warmUp = false } = {}) {
  const clients = connections === "one" ? [await connect()] : await Promise.all(Array.from({ length: threads }, connect));
  const clientOf = (i) => clients[connections === "one" ? 0 : i];
  const ids = [];
  for (let i = 0; i < threads; i++) ids.push((await clientOf(i).request("thread/start", { cwd })).thread.id);
  const arrivals = new Map(ids.map((id) => [id, []]));
  const done = new Set();
  const completedAt = new Map();
  let allDone;
  const finished = new Promise((resolve) => {
    allDone = resolve;
  });
  const stops = clients.flatMap((client) => [
    client.onNotification("item/agentMessage/delta", (p) => arrivals.get(p.threadId)?.push(performance.now())),
    client.onNotification("turn/completed", (p) => {
      if (!arrivals.has(p.threadId)) return;
      completedAt.set(p.threadId, performance.now());
      done.add(p.threadId);
      if (done.size === threads) allDone();
    }),
  ]);
  const before = await model.hold(threads);
  await Promise.all(ids.map((id, i) => clientOf(i).request("turn/start", { threadId: id, text: "stream" })));
  await model.waitFor(before + threads);
  await inspector.evaluate("globalThis.__benchDelay.reset(), true");
  const cpuBefore = cpuMs(server.pid);
  const releasedAt = performance.now();
  void model.open();
  const profileTo = flag("--profile");
  if (profileTo && threads === THREADS.at(-1) && connections === flag("--profile-connections", "one")) {
    writeFileSync(profileTo, JSON.stringify(await inspector.profile(() => finished)));
  } else await finished;
  const cpu = cpuMs(server.pid) - cpuBefore;
  const delay = await inspector.evaluate(
    "(() => { const h = globalThis.__benchDelay; return { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 }; })()",
  );
  for (const stop of stops) stop();
  for (const id of ids)
    await clientOf(0)
      .request("thread/unsubscribe", { threadId: id })
      .catch(() => undefined);
  await Promise.all(clients.map((client) => client.close()));
  if (warmUp) return undefined;
  const total = threads * DELTAS;
  return {
    threads,
    connections,
    ...figures(arrivals, releasedAt, total),
    completedMs: completions(completedAt, releasedAt),
    eventLoopDelayMs: { p50: +delay.p50.toFixed(2), p99: +delay.p99.toFixed(2), max: +delay.max.toFixed(2) },
    serverCpuMsPer1000Deltas: +(cpu / (total / 1000)).toFixed(1),
  };
}

/** The same N streams relayed by a bare Node process. */
async function floorRound(threads) {
  const before = await model.hold(threads);
  const child = spawn(process.execPath, [BARE, baseUrl, String(threads)], { stdio: ["ignore", "pipe", "inherit"] });
  const arrivals = new Map(Array.from({ length: threads }, (_, i) => [`t${i}`, []]));
  let completed = 0;
  const finished = new Promise((resolve) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line);
      if (message.method === "item/agentMessage/delta") arrivals.get(message.params.threadId).push(performance.now());
      else if (message.method === "turn/completed" && ++completed === threads) resolve();
    });
  });
  await model.waitFor(before + threads);
  const releasedAt = performance.now();
  void model.open();
  await finished;
  await new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve()));
  return { threads, ...figures(arrivals, releasedAt, threads * DELTAS) };
}
