#!/usr/bin/env node
// Session files: appending, and opening big transcripts. Prints one JSON document.
// Every scenario runs in a child process of its own, so its peak RSS (VmHWM)
// is its own. Needs a build: npx tsc -b packages/store
//   node bench/session.mjs [--entries 100000] [--mb 50] [--turns 20000] [--runs 3]
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "./lib/transcripts.mjs";

const dist = new URL("../packages/store/dist/src/session/", import.meta.url);
const self = fileURLToPath(import.meta.url);
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};

function memory() {
  const status = readFileSync("/proc/self/status", "utf8");
  const kib = (key) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)[1]);
  return { peakRssMiB: +(kib("VmHWM") / 1024).toFixed(1), rssMiB: +(kib("VmRSS") / 1024).toFixed(1) };
}

/** Wall and CPU time (user + system, all threads) of what runs between start and stop. */
function timer() {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { ms: +(performance.now() - wall).toFixed(1), cpuMs: +((used.user + used.system) / 1000).toFixed(1) };
  };
}

const WORDS = "the a function returns value file test error build import export const let await async module path line change fix".split(" ");

/** Realistic turns: a user message, 0 to 6 tool round trips, a final reply; sizes vary, a few tool results are large. */
function* turns(seed) {
  const random = mulberry32(seed);
  const text = (min, max) => {
    const target = min + Math.floor(random() * (max - min));
    const parts = [];
    for (let length = 0; length < target; ) {
      const part = `${WORDS[Math.floor(random() * WORDS.length)]}${random() < 0.08 ? ".\n" : " "}`;
      parts.push(part);
      length += part.length;
    }
    // Joined, not concatenated: a flat string, as one parsed from a provider's reply would be.
    return parts.join("");
  };
  const usage = {
    input: 1200,
    output: 300,
    cacheRead: 800,
    cacheWrite: 0,
    totalTokens: 2300,
    cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
  };
  const assistant = (content, stopReason) => ({
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "local",
    model: "bench-model",
    usage,
    stopReason,
    timestamp: Date.now(),
  });
  for (let turn = 0; ; turn++) {
    const entries = [{ type: "turn_start" }, { type: "message", message: { role: "user", content: text(20, 600), timestamp: Date.now() } }];
    const calls = Math.floor(random() * 7);
    for (let call = 0; call < calls; call++) {
      const id = `call_${turn}_${call}`;
      const thinking = random() < 0.5 ? [{ type: "thinking", thinking: text(50, 800) }] : [];
      entries.push({
        type: "message",
        message: assistant(
          [...thinking, { type: "text", text: text(0, 300) }, { type: "toolCall", id, name: "bash", arguments: { command: text(10, 120) } }],
          "toolUse",
        ),
      });
      const big = random() < 0.02;
      entries.push({
        type: "message",
        message: {
          role: "toolResult",
          toolCallId: id,
          toolName: "bash",
          content: [{ type: "text", text: big ? text(20_000, 60_000) : text(50, 2500) }],
          isError: random() < 0.05,
          timestamp: Date.now(),
        },
      });
    }
    entries.push({ type: "message", message: assistant([{ type: "text", text: text(50, 1500) }], "stop") });
    yield { entries, turnEnd: { type: "turn_end", status: "completed" } };
  }
}

/** The entries to append, made before the clock starts; "turn_end" stands for a turn end whose turnId is known only once written. */
function plannedEntries(target, withTurns) {
  const planned = [];
  for (const turn of turns(7)) {
    for (const entry of turn.entries) if (withTurns || entry.type !== "turn_start") planned.push(entry);
    if (withTurns) planned.push(turn.turnEnd);
    if (planned.length >= target) return planned.slice(0, target);
  }
}

async function appendScenario({ entries: target, withTurns }) {
  const { SessionFile } = await import(new URL("session-file.js", dist));
  const dir = mkdtempSync(join(tmpdir(), "kc-bench-session-"));
  const planned = plannedEntries(target, withTurns);
  const before = memory();
  const file = await SessionFile.create({ dir, cwd: dir });
  let turnId;
  let durable = 0;
  let turnCount = 0;
  const stop = timer();
  for (const entry of planned) {
    if (entry.type === "turn_end") {
      file.append({ ...entry, turnId });
      durable++;
      continue;
    }
    const stored = file.append(entry);
    if (entry.type === "turn_start") {
      turnId = stored.id;
      turnCount++;
    }
  }
  const time = stop();
  file.close();
  const bytes = statSync(file.path).size;
  rmSync(dir, { recursive: true, force: true });
  const rate = Math.round(planned.length / (time.ms / 1000));
  return {
    entries: planned.length,
    turns: turnCount,
    durableAppends: durable,
    bytes,
    ...time,
    entriesPerSec: rate,
    baseRssMiB: before.peakRssMiB,
    ...memory(),
  };
}

/** Writes a transcript directly (no fsync) until it reaches `mb` MiB or `turnTarget` turns. */
async function generateScenario({ path, mb, turnTarget }) {
  const { serializeEntry, serializeHeader } = await import(new URL("format.js", dist));
  const fd = openSync(path, "w");
  let bytes = 0;
  const write = (line) => (bytes += writeSync(fd, `${line}\n`));
  write(serializeHeader({ type: "session", version: 1, id: "00000000-0000-4000-8000-000000000001", cwd: "/bench", createdAt: new Date().toISOString() }));
  let parentId = null;
  let entries = 0;
  let count = 0;
  let n = 0;
  const add = (entry) => {
    const id = (n++).toString(16).padStart(12, "0");
    write(serializeEntry({ ...entry, id, parentId, timestamp: Date.now() }));
    parentId = id;
    entries++;
    return id;
  };
  for (const turn of turns(11)) {
    let turnId;
    for (const entry of turn.entries) {
      const id = add(entry);
      turnId ??= id;
    }
    add({ ...turn.turnEnd, turnId });
    count++;
    if ((mb !== undefined && bytes >= mb * 1024 * 1024) || count === turnTarget) break;
  }
  closeSync(fd);
  return { bytes, entries, turns: count };
}

async function scanScenario({ path }) {
  const { scanSession } = await import(new URL("scan.js", dist));
  const before = memory();
  const stop = timer();
  const index = await scanSession(path);
  return { ...stop(), entries: index.refs.length, issues: index.issues.length, baseRssMiB: before.peakRssMiB, ...memory() };
}

async function readScenario({ path }) {
  const { readSession } = await import(new URL("read.js", dist));
  const before = memory();
  const stop = timer();
  const snapshot = await readSession(path);
  return { ...stop(), branchEntries: snapshot.entries.length, issues: snapshot.issues.length, baseRssMiB: before.peakRssMiB, ...memory() };
}

async function ownerScenario({ path }) {
  const { SessionFile } = await import(new URL("session-file.js", dist));
  const before = memory();
  const stop = timer();
  const file = await SessionFile.open(path);
  const time = stop();
  const branchEntries = file.branch().length;
  file.close();
  return { ...time, branchEntries, baseRssMiB: before.peakRssMiB, ...memory() };
}

/** What thread/read will do: index the file, walk the branch back 50 turns, parse only those. */
async function pageScenario({ path }) {
  const { scanSession } = await import(new URL("scan.js", dist));
  const { branchPath, readEntries } = await import(new URL("read.js", dist));
  const before = memory();
  const stop = timer();
  const start = performance.now();
  const index = await scanSession(path);
  const scanned = performance.now();
  const branch = branchPath(index.byId, index.leafId);
  let from = branch.length;
  for (let turnsSeen = 0; from > 0 && turnsSeen < 50; ) if (branch[--from].type === "turn_start") turnsSeen++;
  const page = await readEntries(path, branch.slice(from));
  return {
    ...stop(),
    scanMs: +(scanned - start).toFixed(1),
    pageReadMs: +(performance.now() - scanned).toFixed(1),
    entriesInPage: page.entries.length,
    baseRssMiB: before.peakRssMiB,
    ...memory(),
  };
}

/** thread/read's newest page through readBranchPage: read backwards from the end, no index. */
async function tailPageScenario({ path }) {
  const { readBranchPage } = await import(new URL("read-page.js", dist));
  const before = memory();
  const stop = timer();
  const page = await readBranchPage(path, { turns: 50 });
  const time = stop();
  const second = performance.now();
  const older = await readBranchPage(path, { turns: 50, cursor: page.next });
  return {
    ...time,
    readFrom: page.readFrom,
    entriesInPage: page.entries.length,
    nextPageMs: +(performance.now() - second).toFixed(1),
    entriesInNextPage: older.entries.length,
    baseRssMiB: before.peakRssMiB,
    ...memory(),
  };
}

const scenarios = {
  append: appendScenario,
  generate: generateScenario,
  scan: scanScenario,
  read: readScenario,
  owner: ownerScenario,
  page: pageScenario,
  tailPage: tailPageScenario,
};

function inChild(name, params) {
  const result = spawnSync(process.execPath, [self, "--scenario", name, "--params", JSON.stringify(params)], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (result.status !== 0) throw new Error(`scenario ${name} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs a read scenario `runs` times, each in a fresh process; the file is in the page cache after the first. */
function repeated(name, params, runs) {
  const samples = Array.from({ length: runs }, () => inChild(name, params));
  const last = samples.at(-1);
  return {
    ...last,
    ms: median(samples.map((s) => s.ms)),
    cpuMs: median(samples.map((s) => s.cpuMs)),
    msRuns: samples.map((s) => s.ms),
    peakRssMiB: Math.max(...samples.map((s) => s.peakRssMiB)),
  };
}

async function main() {
  const scenario = arg("scenario");
  if (scenario !== undefined) {
    process.stdout.write(JSON.stringify(await scenarios[scenario](JSON.parse(arg("params", "{}")))));
    return;
  }
  const entries = Number(arg("entries", 100_000));
  const mb = Number(arg("mb", 50));
  const turnTarget = Number(arg("turns", 20_000));
  const runs = Number(arg("runs", 3));
  const dir = mkdtempSync(join(tmpdir(), "kc-bench-transcripts-"));
  try {
    const big = join(dir, "big.jsonl");
    const many = join(dir, "many-turns.jsonl");
    const result = {
      bench: "session",
      node: process.version,
      cpu: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
      loadAverageAtStart: loadavg().map((l) => +l.toFixed(2)),
      append: {
        note: "entries are made before the clock starts; turn_end entries are always fsynced; messagesOnly has no turn markers, so no fsync; the owner keeps the branch it wrote in memory, hence the RSS",
        withTurns: inChild("append", { entries, withTurns: true }),
        messagesOnly: inChild("append", { entries, withTurns: false }),
      },
      openLastBranch: { transcript: inChild("generate", { path: big, mb }) },
      historyPage: { transcript: inChild("generate", { path: many, turnTarget }) },
    };
    result.openLastBranch.scanSession = repeated("scan", { path: big }, runs);
    result.openLastBranch.readSession = repeated("read", { path: big }, runs);
    result.openLastBranch.sessionFileOpen = repeated("owner", { path: big }, runs);
    result.historyPage.newest50Turns = repeated("tailPage", { path: many }, runs);
    result.historyPage.newest50TurnsViaIndex = repeated("page", { path: many }, runs);
    result.historyPage.newest50TurnsOf50MB = repeated("tailPage", { path: big }, runs);
    result.historyPage.newest50TurnsOf50MBViaIndex = repeated("page", { path: big }, runs);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
