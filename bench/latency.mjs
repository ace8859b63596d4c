#!/usr/bin/env node
// Three latencies of a fresh process, ours beside OpenAI Codex's app-server in
// the same run, through the shared peer harness (../shared/bench/codex-peer)
// inside loopback-only network namespaces. Prints one JSON document.
//
//   first thread/start  the first thread/start after the handshake (the
//                       harness waits 300 ms after `initialized`)
//   request→delta       the first turn of a fresh process, 1-delta reply:
//                       the model request reaching the mock -> its delta
//                       relayed on stdout (cross-process clock, per rep)
//   cold list           thread/list (limit 50) as the first request of a
//                       restarted process, 1,000 threads seeded through the
//                       protocol by an earlier process
//
//   node bench/latency.mjs [--reps 7] [--list-size 1000] [--no-codex] [--baseline bin] [--out result.json]
//
// --baseline runs another build of ours too (e.g. main's, built elsewhere:
// its packages/cli/bin/knightcode.js), so before and after share the run.
// Each rep of the first two is a fresh process on a fresh home; the listing
// reps are fresh processes on one seeded home. KNIGHTCODE_PEER_HARNESS
// overrides where the harness is; BENCH_DIR where Codex is installed. The
// server runs from this checkout's build (npm run build first).
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { flag, hasFlag, machine } from "./lib/measure.mjs";
import { preparePeer } from "./lib/peer.mjs";

const reps = flag("--reps", "7");
const listSize = flag("--list-size", "1000");
const withCodex = !hasFlag("--no-codex");
const baseline = flag("--baseline");

const median = (values) => {
  const sorted = values.filter((v) => typeof v === "number" && Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = sorted.length >> 1;
  return +(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2).toFixed(2);
};
const round = (values) => values.map((v) => (typeof v === "number" ? +v.toFixed(2) : v));

// One 1-delta turn per rep: the first turn of the process is the harness's
// unmeasured warm-up turn on a new thread, reported as firstTurnOnThread.
const common = [
  "--reps",
  reps,
  "--deltas",
  "1",
  "--turns",
  "1",
  "--thread-starts",
  "2",
  "--skip",
  "rss",
  "--list-sizes",
  listSize,
  "--list-warm",
  "1",
  "--list-limit",
  "50",
];

function pick(result) {
  const perRep = result.reps ?? [];
  const threadStart = perRep.map((r) => r.threadStart?.firstMs);
  const requestToDelta = perRep.map((r) => r.firstTurnOnThread && r.firstTurnOnThread.firstDeltaMs - r.firstTurnOnThread.toModelRequestMs);
  const turnToRequest = perRep.map((r) => r.firstTurnOnThread?.toModelRequestMs);
  const list = result.threadList?.[listSize];
  const coldList = (list?.reps ?? []).map((r) => r.coldFirstPageMs);
  return {
    firstThreadStartMs: median(threadStart),
    requestToFirstDeltaMs: median(requestToDelta),
    coldListMs: median(coldList),
    context: {
      coldStartMs: result.median?.coldStartFreshHomeMs,
      laterThreadStartMs: result.median?.threadStart?.medianMs,
      firstTurnToModelRequestMs: median(turnToRequest),
      firstTurnFirstDeltaMs: median(perRep.map((r) => r.firstTurnOnThread?.firstDeltaMs)),
      listProcessColdStartMs: list?.median?.coldStartMs,
      warmListMs: list?.median?.warmFirstPageMs,
      listedThreads: list?.median?.fullWalkThreads,
      turnsOk: perRep.every((r) => r.firstTurnOnThread?.allOk !== false),
    },
    perRep: { firstThreadStartMs: round(threadStart), requestToFirstDeltaMs: round(requestToDelta), coldListMs: round(coldList) },
  };
}

const peer = preparePeer({ withCodex });
const summary = {
  bench: "latency",
  reps: Number(reps),
  listSize: Number(listSize),
  ...machine(),
  goals: {
    firstThreadStartMs: "at most Codex's",
    requestToFirstDeltaMs: "at most 10",
    coldListMs: "at most half of Codex's",
  },
  knightcode: pick(peer.ours("latency-knightcode", common)),
};
if (baseline) summary.baseline = { bin: baseline, ...pick(peer.ours("latency-baseline", common, baseline)) };
if (withCodex) summary.codex = pick(peer.codex("latency-codex", common));
summary.loadAverageAtEnd = loadavg().map((l) => +l.toFixed(2));
const text = JSON.stringify(summary, null, 2);
const out = flag("--out");
if (out) writeFileSync(out, text + "\n");
console.log(text);
