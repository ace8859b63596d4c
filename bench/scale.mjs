#!/usr/bin/env node
// Scale: thread/list over 10,000, 50,000 and 100,000 threads in one sessions
// folder, and thread/resume / thread/read of a thread whose one turn holds
// 20,000 items (bench/lib/giant-turn.mjs). Every figure is taken from the
// real server through the protocol; RSS is the server's, from /proc.
// Prints one JSON document.
//
//   node bench/scale.mjs [--sizes 10000,50000,100000] [--items 20000] [--runs 15] [--skip list|turn] [--out file]
//
// Needs a build (npm run build). Seeding 100,000 transcripts writes about
// 2 GiB to the temp folder; it is removed afterwards.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const { seed } = await import("./lib/transcripts.mjs");
const { flag, median, mib, rssOf, startServer, timed, walk } = await import("./lib/measure.mjs");

const sizes = flag("--sizes", "10000,50000,100000").split(",").map(Number);
const items = Number(flag("--items", "20000"));
const runs = Number(flag("--runs", "15"));
const skip = new Set(flag("--skip", "").split(","));

/** The index files the server left in the folder: their count and largest size. */
function indexFiles(dir) {
  const names = readdirSync(dir).filter((name) => name.startsWith(".thread-index"));
  const sizes = names.map((name) => statSync(join(dir, name)).size);
  return { files: names.length, totalMiB: mib(sizes.reduce((a, b) => a + b, 0)), largestMiB: mib(Math.max(0, ...sizes)) };
}

/** One process's listing figures: the first page, the warm first page, a full walk, and RSS after each. */
async function listingRun(dir, count) {
  const server = await startServer(dir, { clientName: "bench-scale", requestTimeoutMs: 600_000 });
  try {
    const { client } = server;
    const rssStart = rssOf(server.pid);
    const first = await timed(() => client.request("thread/list", { limit: 50 }));
    const diagnostics = await client.request("server/diagnostics", {});
    const rssFirst = rssOf(server.pid);
    for (let i = 0; i < 3; i++) await client.request("thread/list", { limit: 50 });
    const warm = [];
    for (let i = 0; i < runs; i++) warm.push((await timed(() => client.request("thread/list", { limit: 50 }))).ms);
    const walked = await timed(() => walk(client));
    if (walked.value.threads !== count) throw new Error(`the walk listed ${walked.value.threads} of ${count} threads`);
    const rssWalked = rssOf(server.pid);
    // What the heap holds (RSS also counts the young generation V8 grew for the walk's garbage).
    const { heapBytes } = await client.request("server/diagnostics", {});
    const searched = await timed(() => client.request("thread/list", { limit: 50, search: "zz-no-such-title" }).catch((error) => ({ error: error.message })));
    return {
      firstPage: { ms: first.ms, filesOpened: diagnostics.listingFilesOpened, mibScanned: mib(diagnostics.listingBytesScanned) },
      warmFirstPage: { medianMs: median(warm), minMs: Math.min(...warm), maxMs: Math.max(...warm) },
      fullWalk: { ms: walked.ms, pages: walked.value.pages },
      ...("error" in searched.value ? {} : { titleSearchNoMatch: { ms: searched.ms } }),
      rssMiB: { start: mib(rssStart), afterFirstPage: mib(rssFirst), afterWalk: mib(rssWalked) },
      heapUsedAfterWalkMiB: mib(heapBytes),
    };
  } finally {
    await server.close();
  }
}

async function listing(count) {
  const dir = mkdtempSync(join(tmpdir(), "kc-scale-sessions-"));
  try {
    const seeded = await timed(() => seed(dir, count));
    const result = { threads: count, transcriptMiB: mib(seeded.value.bytes), seedMs: seeded.ms };
    // No index: every transcript is read once, and the index is written as the server closes.
    result.cold = await listingRun(dir, count);
    result.index = indexFiles(dir);
    // A new process finds the index the first one left: the figure a desktop app's restart sees.
    result.indexPresent = await listingRun(dir, count);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const result = {
  bench: "scale",
  node: process.version,
  cpu: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
  loadAverageAtStart: loadavg().map((l) => +l.toFixed(2)),
  goals: {
    "list.50000.indexPresent.firstPage.ms": "< 300 ms",
    "list.100000.indexPresent.firstPage.ms": "< 600 ms",
    "list.50000.indexPresent.rssMiB.afterWalk": "< 120 MiB",
    "list.100000.indexPresent.warmFirstPage.medianMs": "< 10 ms",
    "turn.running.resumeMedianMs": "< 100 ms",
    "turn.running.rssGrowthMiB": "< 32 MiB",
  },
};
if (!skip.has("list")) {
  result.list = {};
  for (const size of sizes) {
    result.list[size] = await listing(size);
    process.stderr.write(`scale: ${size} threads done\n`);
  }
}
if (!skip.has("turn")) {
  const { measureGiantTurn } = await import("./lib/giant-turn.mjs");
  result.turn = await measureGiantTurn({ items, runs: Math.min(runs, 9) });
}
const text = JSON.stringify(result, null, 2);
const out = flag("--out");
if (out) writeFileSync(out, text + "\n");
console.log(text);
