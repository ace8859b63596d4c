#!/usr/bin/env node
// Cold start of `knightcode app-server`: spawn -> initialize response, and RSS
// after the handshake. Prints one JSON document. Each start gets a fresh HOME
// and agent dir. Usage: node bench/startup.mjs [--runs 20]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../packages/cli/bin/knightcode.js", import.meta.url));
const runsArg = process.argv.indexOf("--runs");
const runs = runsArg === -1 ? 20 : Number(process.argv[runsArg + 1]);

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

function once(env) {
  const home = mkdtempSync(join(tmpdir(), "kc-bench-home-"));
  const childEnv = { ...env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, ".knightcode", "agent") };
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, "app-server"], { env: childEnv, stdio: ["pipe", "pipe", "ignore"] });
    let buffered = "";
    let answered = false;
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      if (answered || !buffered.includes("\n")) return;
      answered = true;
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const reply = JSON.parse(buffered.slice(0, buffered.indexOf("\n")));
      if (reply.id !== 1 || !reply.result) return reject(new Error(`unexpected reply ${buffered}`));
      child.stdin.write('{"method":"initialized","params":{}}\n');
      // Let the handshake settle before reading memory.
      setTimeout(() => {
        const rss = rssOf(child.pid);
        child.stdin.end();
        child.on("exit", () => {
          rmSync(home, { recursive: true, force: true });
          resolve({ ms, rss });
        });
      }, 50);
    });
    child.on("error", reject);
    child.stdin.write(JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: "bench", version: "0" } } }) + "\n");
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function series(env) {
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await once(env));
  const ms = samples.map((s) => s.ms);
  const rss = samples.map((s) => s.rss);
  return {
    runs,
    spawnToInitializeMs: { median: +median(ms).toFixed(1), min: +Math.min(...ms).toFixed(1), max: +Math.max(...ms).toFixed(1) },
    rssAfterHandshakeMiB: { median: +(median(rss) / 2 ** 20).toFixed(1), max: +(Math.max(...rss) / 2 ** 20).toFixed(1) },
  };
}

async function nodeFloor(env) {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    samples.push(
      await new Promise((resolve) => {
        const start = process.hrtime.bigint();
        const child = spawn(process.execPath, ["-e", "process.stdout.write('x')"], { env, stdio: ["ignore", "pipe", "ignore"] });
        child.stdout.once("data", () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
      }),
    );
  }
  return +median(samples).toFixed(1);
}

// A desktop app spawns the server with the user's environment; NODE_EXTRA_CA_CERTS
// (set on some machines, this sandbox among them) makes Node parse a CA bundle
// before any of our code runs, so both are reported.
const clean = { ...process.env };
delete clean.NODE_EXTRA_CA_CERTS;
const result = {
  bench: "startup",
  node: process.version,
  targets: { spawnToInitializeMs: 100, rssAfterHandshakeMiB: 60 },
  server: await series(clean),
  nodeFloorMs: await nodeFloor(clean),
};
if (process.env.NODE_EXTRA_CA_CERTS) {
  result.withNodeExtraCaCerts = { server: await series(process.env), nodeFloorMs: await nodeFloor(process.env) };
}
console.log(JSON.stringify(result, null, 2));
