#!/usr/bin/env node
// Eight sub-agents streaming at once under one parent, beside eight
// separate threads streaming the same replies, through one server and one
// WebSocket connection. Each reply is held after its first chunk until all
// eight model requests have arrived, then released together.
//   separate   eight threads, each started by thread/start and turn/start,
//              the connection subscribed to each
//   children   one thread whose model calls agent_start eight times in one
//              reply; the connection (capabilities.subagents) hears the
//              children through its subscription to the parent
// Per round: the aggregate relay rate (release -> last delta), the first
// delta's p50/p99 over the eight, and the server's RSS growth per thread
// it loaded (after a forced collection, read from /proc).
// Goal: children within 10% of separate threads on relay rate and first delta.
// Prints one JSON document. Needs a build (npm run build).
//
//   node bench/subagents.mjs [--agents 8] [--deltas 2000] [--reps 3] [--chunk-delay-ms 0] [--out result.json]
import { writeFileSync } from "node:fs";
import { startListeningServer } from "./lib/listening-server.mjs";
import { modelProcess } from "./lib/model-process.mjs";
import { flag, machine, median, percentile, rssOf } from "./lib/measure.mjs";

const TOKEN = "subagents-bench-token-0123456789abcdef";
const AGENTS = Number(flag("--agents", "8"));
const DELTAS = Number(flag("--deltas", "2000"));
const REPS = Number(flag("--reps", "3"));
const CHUNK_DELAY_MS = Number(flag("--chunk-delay-ms", "0"));

const started = machine();
const model = modelProcess({ deltas: DELTAS, chunkDelayMs: CHUNK_DELAY_MS });
const { modelsJson } = await model.ready;
const server = await startListeningServer({ name: "subagents", modelsJson, token: TOKEN });
const { cwd, inspector } = server;

/** The server's RSS after a full collection, in MiB. */
async function settledRss() {
  await inspector.collectGarbage();
  return rssOf(server.pid) / 2 ** 20;
}

/** One round: eight streams relayed to one connection, as separate threads or as one parent's children. */
async function round(mode) {
  const client = await server.connect({ subagents: true });
  const arrivals = new Map();
  let parentId;
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const completed = new Set();
  const counts = (p) => (mode === "children" ? p.parentThreadId !== undefined && p.parentThreadId === parentId : arrivals.has(p.threadId));
  const stops = [
    client.onNotification("item/agentMessage/delta", (p) => {
      if (!counts(p)) return;
      let times = arrivals.get(p.threadId);
      if (!times) arrivals.set(p.threadId, (times = []));
      times.push(performance.now());
    }),
    client.onNotification("turn/completed", (p) => {
      if (p.threadId === parentId) parentDone();
      if (!counts(p)) return;
      completed.add(p.threadId);
      if (completed.size === AGENTS) finish();
    }),
  ];
  let parentDone;
  const parentFinished = new Promise((resolve) => (parentDone = resolve));
  const rssBefore = await settledRss();
  let before;
  if (mode === "separate") {
    const ids = [];
    for (let i = 0; i < AGENTS; i++) ids.push((await client.request("thread/start", { cwd, approvalMode: "fullAccess" })).thread.id);
    for (const id of ids) arrivals.set(id, []);
    before = await model.hold(AGENTS);
    await Promise.all(ids.map((id) => client.request("turn/start", { threadId: id, text: "stream" })));
    await model.waitFor(before + AGENTS);
  } else {
    parentId = (await client.request("thread/start", { cwd, approvalMode: "fullAccess" })).thread.id;
    before = await model.delegate(AGENTS);
    await client.request("turn/start", { threadId: parentId, text: "delegate" });
    // The parent's request, then each child's.
    await model.waitFor(before + 1 + AGENTS);
  }
  const releasedAt = performance.now();
  void model.open();
  await finished;
  const all = [...arrivals.values()];
  const last = Math.max(...all.map((times) => times.at(-1)));
  const firsts = all.map((times) => times[0] - releasedAt);
  // The parent answers once its calls return: the next round's replies must not go to its last request.
  if (mode === "children") await parentFinished;
  const rssGrowth = (await settledRss()) - rssBefore;
  for (const stop of stops) stop();
  await client.close();
  return {
    mode,
    deltasSeen: all.reduce((n, times) => n + times.length, 0),
    aggregateDeltasPerSec: Math.round((AGENTS * DELTAS) / ((last - releasedAt) / 1000)),
    firstDeltaMs: { p50: percentile(firsts, 50), p99: percentile(firsts, 99) },
    rssPerThreadMiB: +(rssGrowth / AGENTS).toFixed(2),
  };
}

try {
  // A first round of each warms the server (the thread layer, the provider, the sub-agent tools).
  await round("separate");
  await round("children");
  const rounds = [];
  for (let rep = 0; rep < REPS; rep++) for (const mode of ["separate", "children"]) rounds.push(await round(mode));
  const of = (mode) => rounds.filter((r) => r.mode === mode);
  const summary = Object.fromEntries(
    ["separate", "children"].map((mode) => [
      mode,
      {
        aggregateDeltasPerSec: median(of(mode).map((r) => r.aggregateDeltasPerSec)),
        firstDeltaP50Ms: median(of(mode).map((r) => r.firstDeltaMs.p50)),
        firstDeltaP99Ms: median(of(mode).map((r) => r.firstDeltaMs.p99)),
        rssPerThreadMiB: median(of(mode).map((r) => r.rssPerThreadMiB)),
      },
    ]),
  );
  const ratio = (key) => +(summary.children[key] / summary.separate[key]).toFixed(2);
  const result = {
    bench: "subagents",
    ...started,
    agents: AGENTS,
    deltas: DELTAS,
    chunkDelayMs: CHUNK_DELAY_MS,
    reps: REPS,
    goal: "children within 10% of separate threads: relay rate at least 0.9x, first delta at most 1.1x",
    summary,
    children_vs_separate: { aggregate: ratio("aggregateDeltasPerSec"), firstDeltaP50: ratio("firstDeltaP50Ms"), firstDeltaP99: ratio("firstDeltaP99Ms") },
    rounds,
  };
  const text = JSON.stringify(result, null, 2);
  const out = flag("--out");
  if (out) writeFileSync(out, `${text}\n`);
  console.log(text);
} finally {
  await server.close();
  await model.close();
}
