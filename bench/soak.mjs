#!/usr/bin/env node
// A long day in a few minutes. One stdio connection opens thread after thread
// (one at a time, or a few): each runs one turn with a large reply,
// unsubscribes and waits for its idle unload; every tenth turn first leaves a
// background process through the bash tool. Every 100 threads, once the
// unloads settled, the server's memory and payload spool are sampled; before,
// after and after the exit, the background processes still running and the
// spool folders in the server's private TMPDIR are counted. Prints one JSON
// document, also when the server dies: an out-of-memory abort under the
// default --max-old-space-size=128 is a finding, not a failure of the bench.
//
//   node bench/soak.mjs [--threads 500] [--reply-bytes 1048576] [--chunk-bytes 16384]
//     [--bash-every 10] [--concurrency 1] [--sample-every 100] [--trace-every 10]
//     [--idle-ms 50] [--node-flags "--max-old-space-size=128"] [--gc inspector|none]
//     [--settle-samples 5] [--settle-gap-ms 200] [--thread-timeout-ms 120000] [--out file]
//
// Heap figures. Samples are taken at 0 threads, after the first (the thread
// runtime loads on first use, so that is the warm baseline) and every
// --sample-every threads. A sample waits until no thread is loaded, then keeps the
// smallest heapUsed of --settle-samples diagnostics --settle-gap-ms apart
// (`heapMiB`). An idle process seldom collects, so that figure still holds
// garbage. With --gc inspector (the default) the server's node also gets
// --inspect=127.0.0.1:0 and a full collection is forced through it before one
// more reading (`heapAfterGcMiB`): the figure in which a leak shows and a fix
// shows flat. A trace reading (no settling, no collection) every
// --trace-every threads shows the way to a death between samples.
// Needs a build (npm run build).
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectInspector, inspectorUrl } from "./lib/inspector-gc.mjs";
import { watchServerLog } from "./lib/server-log.mjs";
import { soakResponder } from "./lib/soak-model.mjs";
import { killEach, recorded, tagged, tree } from "./lib/soak-processes.mjs";

const { AppServerClient, SpawnedServerTransport } = await import(new URL("../packages/app-server-client/dist/src/index.js", import.meta.url));
const { ScriptedModelServer } = await import(new URL("../packages/testkit/dist/src/index.js", import.meta.url));
const BIN = fileURLToPath(new URL("../packages/cli/bin/knightcode.js", import.meta.url));

const args = process.argv.slice(2);
function option(name, fallback) {
  const at = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (at === -1) return fallback;
  return args[at].startsWith(`--${name}=`) ? args[at].slice(name.length + 3) : args[at + 1];
}
function count(name, fallback) {
  const value = Number(option(name, fallback));
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} wants a whole number, not ${option(name)}`);
  return value;
}
const config = {
  threads: count("threads", 500),
  replyBytes: count("reply-bytes", 1024 * 1024),
  chunkBytes: Math.max(1, count("chunk-bytes", 16 * 1024)),
  bashEvery: count("bash-every", 10),
  concurrency: Math.max(1, count("concurrency", 1)),
  sampleEvery: Math.max(1, count("sample-every", 100)),
  traceEvery: count("trace-every", 10),
  idleMs: Math.max(1, count("idle-ms", 50)),
  nodeFlags: option("node-flags", "--max-old-space-size=128").split(/\s+/).filter(Boolean),
  gc: option("gc", "inspector"),
  settleSamples: Math.max(1, count("settle-samples", 5)),
  settleGapMs: count("settle-gap-ms", 200),
  threadTimeoutMs: Math.max(1000, count("thread-timeout-ms", 120_000)),
};
if (config.gc !== "inspector" && config.gc !== "none") throw new Error(`--gc is inspector or none, not ${config.gc}`);

const log = (line) => process.stderr.write(`soak: ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes) => +(bytes / 2 ** 20).toFixed(1);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? undefined : +sorted[sorted.length >> 1].toFixed(1);
};

// Everything the run creates lives under one folder, removed at the end.
const root = mkdtempSync(join(tmpdir(), "kc-bench-soak-"));
const home = join(root, "home");
const agentDir = join(home, ".knightcode", "agent");
const project = join(root, "project");
const serverTmp = join(root, "tmp");
const pidFile = join(root, "background.pids");
for (const dir of [agentDir, project, serverTmp]) mkdirSync(dir, { recursive: true });
// Every process the server starts inherits this variable, so its leftovers can be found by it.
const runId = randomUUID();
const tag = `KNIGHTCODE_SOAK_RUN=${runId}`;

// --- the scripted model
const scripted = soakResponder({ replyBytes: config.replyBytes, chunkBytes: config.chunkBytes, pidFile });
const model = await ScriptedModelServer.start();
model.setFallback(scripted.respond);
writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson()));

// --- the server
const env = {
  ...process.env,
  HOME: home,
  KNIGHTCODE_CODING_AGENT_DIR: agentDir,
  TMPDIR: serverTmp,
  KNIGHTCODE_THREAD_IDLE_MS: String(config.idleMs),
  KNIGHTCODE_SOAK_RUN: runId,
};
for (const key of ["NODE_EXTRA_CA_CERTS", "NODE_OPTIONS", "KNIGHTCODE_APP_SERVER_TOKEN", "KNIGHTCODE_CODING_AGENT_SESSION_DIR"]) delete env[key];
const nodeArgs = [...config.nodeFlags, ...(config.gc === "inspector" ? ["--inspect=127.0.0.1:0"] : [])];
const transport = new SpawnedServerTransport({ command: process.execPath, args: [...nodeArgs, BIN, "app-server"], cwd: root, env, stderr: "pipe" });
const serverPid = transport.child.pid;
const stderr = watchServerLog(transport.child.stderr);
const startedAt = performance.now();
const waiters = new Map();
let serverExit;
const serverGone = transport.exited.then((exit) => {
  serverExit = { ...exit, atMs: Math.round(performance.now() - startedAt) };
  for (const waiter of waiters.values()) waiter.reject(new Error("the server exited"));
  waiters.clear();
});
const client = new AppServerClient(transport, { requestTimeoutMs: config.threadTimeoutMs });

// --- waiting for one thread's notifications, registered before the request that causes them
const notificationCounts = {};
client.onAnyNotification((method, params) => {
  notificationCounts[method] = (notificationCounts[method] ?? 0) + 1;
  let key;
  if (method === "turn/completed") key = `turn:${params.threadId}`;
  else if (method === "thread/status/changed" && params.status.type === "notLoaded") key = `unloaded:${params.threadId}`;
  const waiter = key && waiters.get(key);
  if (!waiter) return;
  waiters.delete(key);
  waiter.resolve(params);
});
function expect(key, what) {
  const promise = new Promise((resolve, reject) => {
    if (serverExit) return reject(new Error("the server exited"));
    const timer = setTimeout(() => {
      waiters.delete(key);
      reject(Object.assign(new Error(`no ${what} within ${config.threadTimeoutMs} ms`), { stalled: true }));
    }, config.threadTimeoutMs);
    const settle = (fn) => (value) => {
      clearTimeout(timer);
      fn(value);
    };
    waiters.set(key, { resolve: settle(resolve), reject: settle(reject) });
  });
  promise.catch(() => undefined);
  return promise;
}

// --- what is left behind
function spool() {
  const names = readdirSync(serverTmp);
  const mine = names.filter((n) => n.startsWith(`knightcode-spool-${serverPid}-`));
  const files = mine.reduce((sum, dir) => sum + readdirSync(join(serverTmp, dir)).length, 0);
  return {
    folders: mine.length,
    filesInFolders: files,
    otherSpoolFolders: names.filter((n) => n.startsWith("knightcode-spool-")).length - mine.length,
    otherEntries: names.length - names.filter((n) => n.startsWith("knightcode-spool-")).length,
  };
}
function processes() {
  const compact = ({ live, zombies }) => ({ live: live.length, zombies, ...(live.length > 0 ? { pids: live.slice(0, 10) } : {}) });
  const written = recorded(pidFile, tag);
  return {
    tagged: compact(tagged(tag, [serverPid])),
    recorded: { written: written.written, ...compact(written) },
    ...(serverExit ? {} : { attachedToServer: compact(tree(serverPid)) }),
  };
}
const leftovers = () => ({ processes: processes(), spool: spool() });

// --- samples
const diagnostics = () => client.request("server/diagnostics", {});
let inspector;
const trace = [];
const samples = [];
async function settle() {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const d = await diagnostics();
    if ((d.loadedThreads === 0 && d.loadingThreads === 0) || Date.now() > deadline) return d;
    await sleep(20);
  }
}
async function sample(threads, batch) {
  await settle();
  const readings = [];
  for (let k = 0; k < config.settleSamples; k++) {
    if (k > 0) await sleep(config.settleGapMs);
    readings.push(await diagnostics());
  }
  const least = (key) => Math.min(...readings.map((r) => r[key]));
  const last = readings.at(-1);
  const entry = {
    threads,
    atS: +((performance.now() - startedAt) / 1000).toFixed(1),
    heapMiB: mib(least("heapBytes")),
    rssMiB: mib(least("rssBytes")),
    loadedThreads: last.loadedThreads,
    payloadFiles: last.payloadFiles,
    payloadMiB: mib(last.payloadBytes),
    ...(batch
      ? {
          medianThreadMs: median(batch.map((t) => t.ms)),
          medianTurnMs: median(batch.map((t) => t.turnMs)),
          medianUnloadMs: median(batch.map((t) => t.unloadMs)),
        }
      : {}),
  };
  if (inspector) {
    await inspector.collectGarbage();
    const collected = await diagnostics();
    entry.heapAfterGcMiB = mib(collected.heapBytes);
    entry.rssAfterGcMiB = mib(collected.rssBytes);
  }
  const left = leftovers();
  entry.backgroundProcesses = left.processes.tagged.live;
  entry.spoolFolders = left.spool.folders;
  entry.spoolFiles = left.spool.filesInFolders;
  samples.push(entry);
  log(
    `${threads} threads: heap ${entry.heapMiB} MiB${entry.heapAfterGcMiB === undefined ? "" : ` (${entry.heapAfterGcMiB} after GC)`}, rss ${entry.rssMiB} MiB, payload files ${entry.payloadFiles}, background processes ${entry.backgroundProcesses}`,
  );
}

// --- one thread's day: start, one turn, unsubscribe, unload
const turns = { completed: 0, failed: 0, interrupted: 0, other: 0, errors: [] };
let threadsStarted = 0;
let threadsDone = 0;
async function runThread(index) {
  const t0 = performance.now();
  threadsStarted++;
  const { thread } = await client.request("thread/start", { cwd: project, approvalMode: "fullAccess" });
  const done = expect(`turn:${thread.id}`, `turn/completed of thread ${index}`);
  const bash = config.bashEvery > 0 && index % config.bashEvery === config.bashEvery - 1;
  const t1 = performance.now();
  await client.request("turn/start", { threadId: thread.id, text: `soak thread ${index}${bash ? " [bash]" : ""}` });
  const { turn } = await done;
  const t2 = performance.now();
  if (turn.status in turns) turns[turn.status]++;
  else turns.other++;
  if (turn.error && turns.errors.length < 5) turns.errors.push({ thread: index, ...turn.error });
  const unloaded = expect(`unloaded:${thread.id}`, `unload of thread ${index}`);
  await client.request("thread/unsubscribe", { threadId: thread.id });
  await unloaded;
  threadsDone++;
  if (config.traceEvery > 0 && threadsDone % config.traceEvery === 0) {
    const d = await diagnostics();
    trace.push({ threads: threadsDone, heapMiB: mib(d.heapBytes), rssMiB: mib(d.rssBytes), loadedThreads: d.loadedThreads, payloadFiles: d.payloadFiles });
  }
  const t3 = performance.now();
  return { ms: t3 - t0, turnMs: t2 - t1, unloadMs: t3 - t2 };
}
let stopping = false;
async function runBatch(from, to) {
  const timings = [];
  let next = from;
  const worker = async () => {
    try {
      while (next < to && !stopping) timings.push(await runThread(next++));
    } catch (error) {
      stopping = true;
      throw error;
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.concurrency, to - from) }, worker));
  return timings;
}

// --- the run
let outcome = "completed";
let failure;
const counts = {};
let exitWaitMs;
let leftoverKill = 0;
async function main() {
  await client.initialize({ clientInfo: { name: "bench-soak", version: "0" } });
  if (config.gc === "inspector") {
    const url = inspectorUrl(stderr.head);
    if (url) inspector = await connectInspector(url);
    else failure = "no inspector address on the server's stderr; heapAfterGcMiB left out";
  }
  counts.before = leftovers();
  await sample(0);
  log(`server ${serverPid} up; ${config.threads} threads, ${config.replyBytes} byte replies, node ${nodeArgs.join(" ") || "(no flags)"}`);
  try {
    // The sample after the first thread is the warm baseline: the thread runtime loads on first use.
    const ends = new Set([1]);
    for (let end = config.sampleEvery; end < config.threads; end += config.sampleEvery) ends.add(end);
    ends.add(config.threads);
    let from = 0;
    for (const to of [...ends].filter((end) => end <= config.threads)) {
      const batch = await runBatch(from, to);
      await sample(to, batch);
      from = to;
    }
    counts.after = leftovers();
  } catch (error) {
    await Promise.race([serverGone, sleep(1000)]);
    outcome = serverExit ? "serverDied" : error.stalled ? "stalled" : "error";
    failure = error instanceof Error ? error.message : String(error);
    counts.after = serverExit ? "not taken: the server died during the run" : leftovers();
  }
}

async function finish() {
  inspector?.close();
  const closing = performance.now();
  transport.close();
  const exited = await Promise.race([serverGone.then(() => true), sleep(30_000).then(() => false)]);
  if (!exited) {
    outcome = outcome === "completed" ? "exitTimedOut" : outcome;
    transport.child.kill("SIGKILL");
    await serverGone;
  }
  exitWaitMs = Math.round(performance.now() - closing);
  // The exit's own kills (SIGTERM, then SIGKILL after a grace) may land a moment later.
  const deadline = Date.now() + 3000;
  while (tagged(tag, [serverPid]).live.length > 0 && Date.now() < deadline) await sleep(100);
  counts.afterExit = leftovers();
}

function cleanup() {
  if (transport.child.exitCode === null && transport.child.signalCode === null) transport.child.kill("SIGKILL");
  const left = tagged(tag, [serverPid]).live;
  leftoverKill = left.length;
  killEach(left);
  rmSync(root, { recursive: true, force: true });
}
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
]) {
  process.on(signal, () => {
    cleanup();
    process.exit(code);
  });
}

try {
  await main();
} catch (error) {
  outcome = serverExit ? "serverDied" : "error";
  failure = error instanceof Error ? error.message : String(error);
}
try {
  await finish();
} catch (error) {
  failure ??= `finishing: ${error instanceof Error ? error.message : String(error)}`;
}
stderr.flush();
await model.close();
cleanup();

function growthBetween(first, last) {
  if (!first || !last || first === last) return undefined;
  const delta = (key) => (first[key] === undefined || last[key] === undefined ? undefined : +(last[key] - first[key]).toFixed(1));
  const span = last.threads - first.threads;
  return {
    fromThreads: first.threads,
    toThreads: last.threads,
    heapMiB: delta("heapMiB"),
    heapAfterGcMiB: delta("heapAfterGcMiB"),
    rssMiB: delta("rssMiB"),
    perThreadKiB: span > 0 ? +(((delta("heapAfterGcMiB") ?? delta("heapMiB")) * 1024) / span).toFixed(1) : undefined,
  };
}
const tailText = stderr.tail.join("\n");
const result = {
  bench: "soak",
  node: process.version,
  cpu: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
  loadAverageAtStart: loadavg().map((l) => +l.toFixed(2)),
  config: { ...config, serverNodeArgs: nodeArgs },
  outcome,
  ...(failure ? { failure } : {}),
  threadsStarted,
  threadsCompleted: threadsDone,
  turns,
  modelRequests: scripted.counts,
  samples,
  trace,
  heapGrowth: growthBetween(samples[0], samples.at(-1)),
  heapGrowthAfterFirstThread: growthBetween(
    samples.find((e) => e.threads === 1),
    samples.at(-1),
  ),
  server: {
    pid: serverPid,
    exit: serverExit,
    diedDuringRun: outcome === "serverDied",
    outOfMemory: /heap out of memory/i.test(tailText),
    exitWaitMs,
    stderrLevels: stderr.levels,
    warningsAndErrors: Object.fromEntries([...stderr.problems].slice(0, 20)),
    stderrTail: outcome === "completed" ? stderr.tail.slice(-5) : stderr.tail,
  },
  leftovers: counts,
  leftoverProcessesKilledByBench: leftoverKill,
  notifications: notificationCounts,
  wallS: +((performance.now() - startedAt) / 1000).toFixed(1),
};
const text = JSON.stringify(result, null, 2);
const out = option("out");
if (out) writeFileSync(out, text + "\n");
console.log(text);
