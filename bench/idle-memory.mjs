#!/usr/bin/env node
// Where an idle server's memory goes, beside bare Node's in the same run.
// Each rep starts a bare `node` that does nothing, and a server as a desktop
// app spawns it (a models.json naming a default model, so the model's
// warm-up runs once a thread opens; nothing connects anywhere), then reads
// /proc/<pid>/smaps_rollup of each:
//   rssMiB, anonMiB, fileMiB   resident, of which anonymous (heaps, stacks)
//                              and file-backed (mostly the node binary's
//                              pages the process has touched)
// at these moments of the server's life:
//   afterInit                  300 ms after `initialized` (as the peer
//                              harness reads "RSS after initialize"): the
//                              thread layer has warmed
//   idle<N>s                   N seconds after `initialized` with nothing
//                              asked: V8 shrinks its heap once it sees the
//                              process idle
//   afterThreadStart           300 ms after the first thread/start: the
//                              default model's provider and SDK have warmed
//   threadIdle<N>s             N seconds after that thread/start
// and bare Node 300 ms after its start. overBareMiB is each figure minus
// bare Node's. Prints one JSON document. Needs a build (npm run build).
//
//   node bench/idle-memory.mjs [--reps 3] [--idle-seconds 5,15,30] [--out result.json]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { flag, machine, median, startServer } from "./lib/measure.mjs";

const REPS = Number(flag("--reps", "3"));
const IDLE = flag("--idle-seconds", "5,15,30").split(",").map(Number);
const SETTLE_MS = 300;

const MODELS = JSON.stringify({
  providers: {
    local: {
      // Never reached: the warm-up's request goes to a server of the process's own.
      baseUrl: "http://127.0.0.1:9/v1",
      api: "openai-responses",
      apiKey: "not-a-secret",
      models: [{ id: "local-model", name: "Local", reasoning: false, contextWindow: 200000, maxTokens: 8192 }],
    },
  },
});

/** Resident memory of `pid`, split into anonymous and file-backed, in MiB. */
function memoryOf(pid) {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)[1]);
  const rss = kb("Rss");
  const anon = kb("Anonymous");
  const mb = (k) => +(k / 1024).toFixed(1);
  return { rssMiB: mb(rss), anonMiB: mb(anon), fileMiB: mb(rss - anon) };
}

async function bareNode() {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" });
  await new Promise((resolve) => child.once("spawn", resolve));
  await sleep(SETTLE_MS);
  const memory = memoryOf(child.pid);
  child.kill();
  return memory;
}

/** Waits until `seconds` after `from` (a performance.now() reading). */
const until = (from, seconds) => sleep(Math.max(0, from + seconds * 1000 - performance.now()));

async function serverLife() {
  const sessions = mkdtempSync(join(tmpdir(), "kc-idle-memory-"));
  const server = await startServer(sessions, { clientName: "bench-idle-memory", agentFiles: { "models.json": MODELS } });
  try {
    const readings = {};
    const initializedAt = performance.now();
    await sleep(SETTLE_MS);
    readings.afterInit = memoryOf(server.pid);
    for (const seconds of IDLE) {
      await until(initializedAt, seconds);
      readings[`idle${seconds}s`] = memoryOf(server.pid);
    }
    const startedAt = performance.now();
    await server.client.request("thread/start", { cwd: sessions });
    await sleep(SETTLE_MS);
    readings.afterThreadStart = memoryOf(server.pid);
    for (const seconds of IDLE) {
      await until(startedAt, seconds);
      readings[`threadIdle${seconds}s`] = memoryOf(server.pid);
    }
    return readings;
  } finally {
    await server.close();
    rmSync(sessions, { recursive: true, force: true });
  }
}

const started = machine();
const bare = [];
const lives = [];
for (let rep = 0; rep < REPS; rep++) {
  bare.push(await bareNode());
  lives.push(await serverLife());
}
const medianOf = (list) => Object.fromEntries(Object.keys(list[0]).map((key) => [key, median(list.map((m) => m[key]))]));
const bareNodeMiB = medianOf(bare);
const server = Object.fromEntries(Object.keys(lives[0]).map((moment) => [moment, medianOf(lives.map((life) => life[moment]))]));
const overBareMiB = Object.fromEntries(Object.entries(server).map(([moment, m]) => [moment, +(m.rssMiB - bareNodeMiB.rssMiB).toFixed(1)]));
const result = { bench: "idle-memory", ...started, reps: REPS, bareNodeMiB, server, overBareMiB, runs: { bare, server: lives } };
const out = flag("--out");
if (out) writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
console.log(JSON.stringify(result, null, 2));
