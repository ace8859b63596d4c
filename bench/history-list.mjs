#!/usr/bin/env node
// thread/list: cold and warm listings of 1,000 and 10,000 transcripts in one
// sessions folder. Prints one JSON document. Needs a build: npx tsc -b packages/store
//   node bench/history-list.mjs [--sizes 1000,10000] [--runs 15]
// "Cold" means no .thread-index.json and a new engine; the transcripts were
// just written, so their bytes come from the page cache, not the disk.
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const { ThreadListing } = await import("@knightcode/store/listing/thread-listing");
const { INDEX_FILE } = await import("@knightcode/store/listing/index-file");
const { PROJECTS, seed, serializeEntry } = await import("./lib/transcripts.mjs");

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return +(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2).toFixed(2);
}

async function timed(run) {
  const start = performance.now();
  const value = await run();
  return { ms: +(performance.now() - start).toFixed(2), value };
}

const counted = (listing, before) => ({
  filesOpened: listing.counters.listingFilesOpened - before.listingFilesOpened,
  bytesScanned: listing.counters.listingBytesScanned - before.listingBytesScanned,
});

async function walkAll(listing, folders, maxPages) {
  let pages = 0;
  let threads = 0;
  let cursor;
  do {
    const page = await listing.list({ folders, limit: 50, ...(cursor ? { cursor } : {}) });
    pages++;
    threads += page.threads.length;
    cursor = page.nextCursor;
  } while (cursor && pages < maxPages);
  return { pages, threads };
}

async function scale(count, runs) {
  const dir = mkdtempSync(join(tmpdir(), "kc-bench-list-"));
  try {
    const seeded = await timed(() => seed(dir, count));
    const folders = [dir];
    const result = { transcripts: count, transcriptBytes: seeded.value.bytes, seedMs: seeded.ms };

    const listing = new ThreadListing();
    const zero = { ...listing.counters };
    const cold = await timed(() => listing.list({ folders }));
    result.coldFirstPage = { ms: cold.ms, threads: cold.value.threads.length, ...counted(listing, zero) };
    const flushed = await timed(() => listing.flush());
    // The index is its top file and its shards.
    result.indexWrite = {
      ms: flushed.ms,
      bytes: readdirSync(dir)
        .filter((name) => name.startsWith(".thread-index"))
        .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0),
    };

    // A few unmeasured listings first: the cold scan leaves garbage to collect and code to optimize.
    for (let i = 0; i < 3; i++) await listing.list({ folders });
    const before = { ...listing.counters };
    const warm = [];
    for (let i = 0; i < runs; i++) warm.push((await timed(() => listing.list({ folders }))).ms);
    result.warmFirstPage = { medianMs: median(warm), runsMs: warm, ...counted(listing, before) };

    // The floor of any stat-based warm listing: readdir and one stat per transcript, nothing else.
    const floor = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      for (const name of readdirSync(dir)) statSync(join(dir, name), { throwIfNoEntry: false });
      floor.push(+(performance.now() - start).toFixed(2));
    }
    result.readdirAndStatOnlyMs = median(floor);

    const fromIndex = [];
    let opened = 0;
    for (let i = 0; i < Math.min(runs, 5); i++) {
      const fresh = new ThreadListing();
      fromIndex.push((await timed(() => fresh.list({ folders }))).ms);
      opened += fresh.counters.listingFilesOpened;
    }
    result.newEngineWithIndexFirstPage = { medianMs: median(fromIndex), runsMs: fromIndex, filesOpened: opened };

    // What a new server does: a stamped index answers the first page alone, and the full look follows (waited for here, unmeasured).
    const trusted = [];
    let trustedOpened = 0;
    for (let i = 0; i < Math.min(runs, 5); i++) {
      const fresh = new ThreadListing({ trustIndex: true });
      trusted.push((await timed(() => fresh.list({ folders }))).ms);
      await fresh.close();
      trustedOpened += fresh.counters.listingFilesOpened;
    }
    result.newEngineTrustingIndexFirstPage = { medianMs: median(trusted), runsMs: trusted, filesOpened: trustedOpened };

    const walks = [];
    let walked;
    const walkBefore = { ...listing.counters };
    for (let i = 0; i < Math.min(runs, 5); i++) {
      const run = await timed(() => walkAll(listing, folders, 20));
      walks.push(run.ms);
      walked = run.value;
    }
    result.warmWalk20PagesOf50 = { medianMs: median(walks), runsMs: walks, ...walked, ...counted(listing, walkBefore) };

    const filtered = await timed(() => listing.list({ folders, cwd: PROJECTS[3] }));
    result.warmFirstPageCwdFilter = { ms: filtered.ms, threads: filtered.value.threads.length };

    const oneChanged = listing.list({ folders }).then((page) => page.threads.at(-1).path);
    const target = await oneChanged;
    appendFileSync(target, serializeEntry({ type: "thread_name", id: "benchrename1", parentId: null, timestamp: Date.now(), name: "renamed" }) + "\n");
    const changedBefore = { ...listing.counters };
    const changed = await timed(() => listing.list({ folders }));
    result.oneAppendedThenFirstPage = { ms: changed.ms, topIsRenamed: changed.value.threads[0].name === "renamed", ...counted(listing, changedBefore) };

    rmSync(join(dir, INDEX_FILE));
    const coldAgain = new ThreadListing();
    const again = await timed(() => coldAgain.list({ folders }));
    result.coldFirstPageAgain = { ms: again.ms, ...counted(coldAgain, zero) };
    await coldAgain.flush();
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What one stat costs here: the warm listing is mostly one stat per transcript. */
function statCost() {
  const path = new URL(import.meta.url).pathname;
  const start = performance.now();
  for (let i = 0; i < 10_000; i++) statSync(path);
  return +(((performance.now() - start) / 10_000) * 1000).toFixed(2);
}

const sizes = arg("sizes", "1000,10000").split(",").map(Number);
const runs = Number(arg("runs", 15));
const result = {
  bench: "history-list",
  node: process.version,
  cpu: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
  loadAverageAtStart: loadavg().map((l) => +l.toFixed(2)),
  statSyncMicros: statCost(),
  targets: { "scales.1000.warmFirstPage": "< 10 ms", "scales.1000.warmWalk20PagesOf50": "< 150 ms", "scales.10000.warmFirstPage": "< 50 ms" },
  scales: {},
};
for (const size of sizes) result.scales[size] = await scale(size, runs);
const status = readFileSync("/proc/self/status", "utf8");
result.peakRssMiB = +(Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024).toFixed(1);
console.log(JSON.stringify(result, null, 2));
