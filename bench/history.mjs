#!/usr/bin/env node
// History through the protocol: thread/list at 1,000 and 10,000 threads
// (cold, warm, full walk, after a restart), and thread/read / thread/resume
// of one transcript of 20,000 turns (time and RSS growth of the server).
// With --peer, also the shared peer harness's thread/list figures for our
// server and OpenAI Codex's app-server at 1,000 threads seeded through the
// protocol, in the same run, inside a loopback-only network namespace.
// Prints one JSON document.
//
//   node bench/history.mjs [--sizes 1000,10000] [--turns 20000] [--runs 15] [--peer] [--out file]
//
// Needs a build (npm run build). BENCH_DIR is where Codex is installed for --peer.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const { seed, longTranscript } = await import("./lib/transcripts.mjs");
const { flag, hasFlag, median, mib, rssOf, startServer, timed, walk } = await import("./lib/measure.mjs");
const { preparePeer } = await import("./lib/peer.mjs");

const sizes = flag("--sizes", "1000,10000").split(",").map(Number);
const longTurns = Number(flag("--turns", "20000"));
const runs = Number(flag("--runs", "15"));

async function listing(count) {
  const dir = mkdtempSync(join(tmpdir(), "kc-bench-sessions-"));
  try {
    const seeded = seed(dir, count);
    const result = { threads: count, transcriptMiB: mib(seeded.bytes) };
    let server = await startServer(dir);
    const { client } = server;
    const cold = await timed(() => client.request("thread/list", { limit: 50 }));
    const diagnostics = await client.request("server/diagnostics", {});
    result.coldFirstPage = { ms: cold.ms, filesOpened: diagnostics.listingFilesOpened, bytesScanned: diagnostics.listingBytesScanned };
    for (let i = 0; i < 3; i++) await client.request("thread/list", { limit: 50 });
    const warm = [];
    for (let i = 0; i < runs; i++) warm.push((await timed(() => client.request("thread/list", { limit: 50 }))).ms);
    const after = await client.request("server/diagnostics", {});
    result.warmFirstPage = {
      medianMs: median(warm),
      minMs: Math.min(...warm),
      maxMs: Math.max(...warm),
      filesOpened: after.listingFilesOpened - diagnostics.listingFilesOpened,
    };
    const walks = [];
    let walked;
    for (let i = 0; i < 5; i++) {
      const run = await timed(() => walk(client));
      walks.push(run.ms);
      walked = run.value;
    }
    result.fullWalk = { medianMs: median(walks), ...walked };
    result.rssMiB = mib(rssOf(server.pid));
    await server.close();
    // A restarted server finds the index the first one left.
    server = await startServer(dir);
    const restarted = await timed(() => server.client.request("thread/list", { limit: 50 }));
    const restartDiagnostics = await server.client.request("server/diagnostics", {});
    result.firstPageAfterRestart = { ms: restarted.ms, filesOpened: restartDiagnostics.listingFilesOpened };
    await server.close();
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function longHistory(turns) {
  const dir = mkdtempSync(join(tmpdir(), "kc-bench-long-"));
  try {
    const file = longTranscript(dir, turns);
    const other = longTranscript(dir, turns);
    const result = { turns, transcriptMiB: mib(file.bytes) };
    const server = await startServer(dir);
    const { client } = server;
    await client.request("server/diagnostics", {});
    const rssBefore = rssOf(server.pid);
    const first = await timed(() => client.request("thread/read", { threadId: file.id }));
    const rssAfterRead = rssOf(server.pid);
    const reads = [];
    for (let i = 0; i < runs; i++) reads.push((await timed(() => client.request("thread/read", { threadId: file.id }))).ms);
    const older = await timed(() => client.request("thread/read", { threadId: file.id, cursor: first.value.nextCursor }));
    result.threadRead = {
      firstMs: first.ms,
      medianMs: median(reads),
      olderPageMs: older.ms,
      turnsOnPage: first.value.turns.length,
      pageKiB: +(Buffer.byteLength(JSON.stringify(first.value)) / 1024).toFixed(1),
      rssGrowthMiB: mib(rssAfterRead - rssBefore),
    };
    const resumed = await timed(() => client.request("thread/resume", { threadId: file.id }));
    const rssAfterResume = rssOf(server.pid);
    // The first load of a process also loads the thread runtime's modules and the model catalogue; the second is the steady cost.
    const second = await timed(() => client.request("thread/resume", { threadId: other.id }));
    const rssAfterSecond = rssOf(server.pid);
    result.threadResume = {
      firstInProcessMs: resumed.ms,
      ms: second.ms,
      turnsOnPage: second.value.turns.length,
      rssGrowthMiB: mib(rssAfterResume - rssAfterRead),
      secondRssGrowthMiB: mib(rssAfterSecond - rssAfterResume),
    };
    result.rssBeforeMiB = mib(rssBefore);
    await server.close();
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The shared harness's list measurement for our server and for Codex, 1,000 threads seeded through each protocol. */
function peerList() {
  const peer = preparePeer({ withCodex: true });
  const common = ["--reps", "1", "--skip", "turns,rss", "--list-sizes", "1000", "--list-warm", "5"];
  const pick = (result) => ({ ...result.threadList?.["1000"]?.median, seedThreadsPerSec: result.threadList?.["1000"]?.seedThreadsPerSec });
  return { knightcode: pick(peer.ours("knightcode-list", common)), codex: pick(peer.codex("codex-list", common)) };
}

const result = {
  bench: "history",
  node: process.version,
  cpu: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
  loadAverageAtStart: loadavg().map((l) => +l.toFixed(2)),
  targets: {
    "list.1000.warmFirstPage": "< 10 ms",
    "list.1000.fullWalk": "< 150 ms",
    "list.10000.warmFirstPage": "< 50 ms",
    "long.threadRead.firstMs": "< 100 ms",
    "long.threadResume.ms": "< 100 ms",
  },
  list: {},
};
for (const size of sizes) result.list[size] = await listing(size);
result.long = await longHistory(longTurns);
if (hasFlag("--peer")) result.peer = peerList();
const text = JSON.stringify(result, null, 2);
const out = flag("--out");
if (out) writeFileSync(out, text + "\n");
console.log(text);
