#!/usr/bin/env node
// Turn latency, relay rate, thread/start and memory: ours beside OpenAI
// Codex's app-server, in the same run, with the shared peer harness
// (../shared/bench/codex-peer) against its mock Responses API, inside a
// loopback-only network namespace. Prints one JSON document.
//
//   node bench/turns.mjs [--reps 3] [--no-codex] [--out result.json]
//
// KNIGHTCODE_PEER_HARNESS overrides where the harness is; BENCH_DIR where
// Codex is installed (npm) and runs are kept. The server runs from this
// checkout's build (npm run build first).
import { writeFileSync } from "node:fs";
import { flag, hasFlag } from "./lib/measure.mjs";
import { preparePeer } from "./lib/peer.mjs";

const reps = flag("--reps", "3");
const withCodex = !hasFlag("--no-codex");
const peer = preparePeer({ withCodex });
const common = ["--reps", reps, "--skip", "list", "--deltas", "1,100,2000", "--rss-threads", "100"];
const ours = peer.ours("knightcode", common);
const codex = withCodex ? peer.codex("codex", common) : undefined;

const pick = (r) => {
  if (!r) return undefined;
  const m = r.median ?? r.medians ?? r;
  const t = (n) => m.turns?.[n] ?? {};
  return {
    coldStartFreshHomeMs: m.coldStartFreshHomeMs,
    threadStartFirstMs: m.threadStart?.firstMs,
    threadStartMs: m.threadStart?.medianMs,
    toModelRequestMs: { 1: t(1).toModelRequestMs, 100: t(100).toModelRequestMs, 2000: t(2000).toModelRequestMs },
    firstDeltaMs: { 1: t(1).firstDeltaMs, 100: t(100).firstDeltaMs, 2000: t(2000).firstDeltaMs },
    completedMs: { 1: t(1).completedMs, 100: t(100).completedMs, 2000: t(2000).completedMs },
    relayDeltasPerSec: { 100: t(100).deltasPerSec, 2000: t(2000).deltasPerSec },
    rssAfterInitMiB: m.rss?.afterInitKB && +(m.rss.afterInitKB / 1024).toFixed(1),
    // After the thread/starts (each warms the default model's request path), and after the turns.
    rssAfterThreadStartsMiB: m.rss?.afterThreadStartsKB && +(m.rss.afterThreadStartsKB / 1024).toFixed(1),
    rssAfterTurnsMiB: m.rss?.afterTurnsKB && +(m.rss.afterTurnsKB / 1024).toFixed(1),
    rssPerThreadMiB: m.rss?.perThreadKB && +(m.rss.perThreadKB / 1024).toFixed(2),
  };
};
const summary = {
  bench: "turns",
  reps: Number(reps),
  knightcode: pick(ours),
  codex: pick(codex),
  raw: { knightcode: ours.median ?? ours, ...(codex ? { codex: codex.median ?? codex } : {}) },
};
const text = JSON.stringify(summary, null, 2);
const out = flag("--out");
if (out) writeFileSync(out, text + "\n");
console.log(text);
