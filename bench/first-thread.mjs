#!/usr/bin/env node
// A client that opens a thread the moment the server is up, as a desktop app
// reopening its last thread does: spawn -> initialize, then thread/start
// sent right after `initialized`, with no pause (the peer harness's other
// runs wait 300 ms first, which lets our thread layer load in the
// background). Ours beside OpenAI Codex's app-server in the same run,
// through the shared peer harness (../shared/bench/codex-peer) in
// loopback-only network namespaces. Prints one JSON document.
//
//   node bench/first-thread.mjs [--reps 9] [--no-codex] [--baseline bin] [--out result.json]
//
// --baseline runs another build of ours too (its packages/cli/bin/knightcode.js),
// so before and after share the run. Each rep is a fresh process on a fresh
// home. The server runs from this checkout's build (npm run build first).
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { flag, hasFlag, machine, median } from "./lib/measure.mjs";
import { preparePeer } from "./lib/peer.mjs";

const reps = flag("--reps", "9");
const withCodex = !hasFlag("--no-codex");
const baseline = flag("--baseline");
const args = ["--reps", reps, "--thread-starts", "1", "--skip", "rss,list,turns", "--settle-ms", "0"];

function pick(result) {
  const perRep = (result.reps ?? []).map((rep) => ({ coldStartMs: rep.coldStartFreshHomeMs, firstThreadStartMs: rep.threadStart?.firstMs }));
  const figures = (key) => perRep.map((rep) => rep[key]).filter((value) => typeof value === "number");
  const ready = perRep.filter((rep) => typeof rep.coldStartMs === "number" && typeof rep.firstThreadStartMs === "number");
  return {
    // initialize answered -> thread/start answered, with thread/start sent at once
    firstThreadStartMs: median(figures("firstThreadStartMs")),
    coldStartMs: median(figures("coldStartMs")),
    // spawn -> the first thread ready, less the client's own send of initialized
    spawnToThreadMs: median(ready.map((rep) => rep.coldStartMs + rep.firstThreadStartMs)),
    perRep: perRep.map((rep) => ({ coldStartMs: +rep.coldStartMs.toFixed(1), firstThreadStartMs: +rep.firstThreadStartMs.toFixed(1) })),
  };
}

const peer = preparePeer({ withCodex });
const summary = {
  bench: "first-thread",
  reps: Number(reps),
  ...machine(),
  knightcode: pick(peer.ours("first-thread-knightcode", args)),
};
if (baseline) summary.baseline = { bin: baseline, ...pick(peer.ours("first-thread-baseline", args, baseline)) };
if (withCodex) summary.codex = pick(peer.codex("first-thread-codex", args));
summary.loadAverageAtEnd = loadavg().map((l) => +l.toFixed(2));
const text = JSON.stringify(summary, null, 2);
const out = flag("--out");
if (out) writeFileSync(out, `${text}\n`);
console.log(text);
