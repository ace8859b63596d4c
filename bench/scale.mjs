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
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const { AppServerClient, SpawnedServerTransport } = await import(new URL("../packages/app-server-client/dist/src/index.js", import.meta.url));
const { seed } = await import("./lib/transcripts.mjs");

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const sizes = flag("sizes", "10000,50000,100000").split(",").map(Number);
const items = Number(flag("items", "20000"));
const runs = Number(flag("runs", "15"));
const skip = new Set(flag("skip", "").split(","));
const BIN = join(repo, "packages", "cli", "bin", "knightcode.js");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return +(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2).toFixed(2);
};
const mib = (bytes) => +(bytes / 2 ** 20).toFixed(1);
const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;

async function timed(run) {
  const start = performance.now();
  const value = await run();
  return { ms: +(performance.now() - start).toFixed(2), value };
}

/** A server on a sessions folder, as a desktop app spawns it. */
async function startServer(sessionDir) {
  const home = mkdtempSync(join(tmpdir(), "kc-scale-home-"));
  const env = { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, "agent") };
  delete env.NODE_EXTRA_CA_CERTS;
  const transport = new SpawnedServerTransport({ command: process.execPath, args: [BIN, "app-server", "--session-dir", sessionDir], env, stderr: "ignore" });
  const client = new AppServerClient(transport, { requestTimeoutMs: 600_000 });
  await client.initialize({ clientInfo: { name: "bench-scale", version: "0" } });
  return {
    client,
    pid: transport.child.pid,
    async close() {
      transport.close();
      await transport.exited;
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function walk(client) {
  let pages = 0;
  let threads = 0;
  let cursor;
  do {
    const page = await client.request("thread/list", { limit: 50, ...(cursor ? { cursor } : {}) });
    pages++;
    threads += page.threads.length;
    cursor = page.nextCursor;
  } while (cursor);
  return { pages, threads };
}

/** The index files the server left in the folder: their count and largest size. */
function indexFiles(dir) {
  const names = readdirSync(dir).filter((name) => name.startsWith(".thread-index"));
  const sizes = names.map((name) => statSync(join(dir, name)).size);
  return { files: names.length, totalMiB: mib(sizes.reduce((a, b) => a + b, 0)), largestMiB: mib(Math.max(0, ...sizes)) };
}

/** One process's listing figures: the first page, the warm first page, a full walk, and RSS after each. */
async function listingRun(dir, count) {
  const server = await startServer(dir);
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
    "turn.running.resume.medianMs": "< 100 ms",
    "turn.running.resume.rssGrowthMiB": "< 32 MiB",
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
const out = flag("out");
if (out) writeFileSync(out, text + "\n");
console.log(text);
