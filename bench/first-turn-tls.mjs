#!/usr/bin/env node
// The first turn of a fresh process against a model served over https, as
// most models are: turn/start -> the first delta, and RSS just before the
// turn. Prints one JSON document. The model server (bench/lib/tls-model.mjs)
// runs on 127.0.0.1 with the test fixture's certificate.
//
// The server is started as a desktop app starts it, without
// NODE_EXTRA_CA_CERTS: with it, Node builds its store of trusted
// certificates at start, which on most machines it builds at the first
// secure connection. So the fixture's certificate is not verified here
// (NODE_TLS_REJECT_UNAUTHORIZED=0, this bench's server only); the
// connection is otherwise a real one.
//
// Each rep: fresh HOME, initialize, 300 ms, thread/start, then --settle-ms
// (default 800: a person types the first message for at least that long)
// before turn/start.
//
//   node bench/first-turn-tls.mjs [--reps 7] [--settle-ms 800] [--baseline bin] [--out result.json]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BIN, flag, machine, median, mib, rssOf } from "./lib/measure.mjs";

const reps = Number(flag("--reps", "7"));
const settleMs = Number(flag("--settle-ms", "800"));
const baseline = flag("--baseline");
const MODEL = fileURLToPath(new URL("./lib/tls-model.mjs", import.meta.url));
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One fresh server's first turn: ms from turn/start to the first delta, and RSS before it. */
async function firstTurn(bin, port) {
  const home = mkdtempSync(join(tmpdir(), "kc-bench-tls-"));
  const work = join(home, "work");
  const agentDir = join(home, "agent");
  mkdirSync(work);
  mkdirSync(agentDir);
  const model = { id: "m", contextWindow: 100_000, maxTokens: 1000 };
  const provider = { baseUrl: `https://127.0.0.1:${port}/v1`, api: "openai-responses", apiKey: "bench-key", models: [model] };
  writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { remote: provider } }));
  const env = { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: agentDir, NODE_TLS_REJECT_UNAUTHORIZED: "0" };
  delete env.NODE_EXTRA_CA_CERTS;
  const child = spawn(process.execPath, [bin, "app-server"], { env, cwd: work, stdio: ["pipe", "pipe", "ignore"] });
  const answers = new Map();
  let onNotification = () => undefined;
  let buffered = "";
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      if (message.id !== undefined) answers.get(message.id)?.(message);
      else onNotification(message);
    }
  });
  let nextId = 1;
  const call = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      answers.set(id, (message) => (message.error ? reject(new Error(`${method}: ${JSON.stringify(message.error)}`)) : resolve(message.result)));
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  try {
    await call("initialize", { clientInfo: { name: "bench", version: "0" } });
    child.stdin.write('{"method":"initialized","params":{}}\n');
    await pause(300);
    const { thread } = await call("thread/start", { cwd: work, approvalMode: "fullAccess" });
    await pause(settleMs);
    const rss = rssOf(child.pid);
    const firstDelta = new Promise((resolve) => {
      onNotification = (message) => {
        if (message.method === "item/agentMessage/delta") resolve(performance.now());
      };
    });
    const start = performance.now();
    await call("turn/start", { threadId: thread.id, text: "hello" });
    return { ms: +((await firstDelta) - start).toFixed(2), rssMiB: mib(rss) };
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.on("exit", resolve));
    rmSync(home, { recursive: true, force: true });
  }
}

const model = spawn(process.execPath, [MODEL], { stdio: ["pipe", "pipe", "inherit"] });
const port = await new Promise((resolve) => model.stdout.once("data", (chunk) => resolve(String(chunk).trim())));
const builds = { knightcode: BIN, ...(baseline ? { baseline } : {}) };
const samples = Object.fromEntries(Object.keys(builds).map((name) => [name, []]));
try {
  // Interleaved, so both builds see the same moments of a loaded machine.
  for (let rep = 0; rep < reps; rep++) for (const [name, bin] of Object.entries(builds)) samples[name].push(await firstTurn(bin, port));
} finally {
  model.stdin.end();
}
const summary = { bench: "first-turn-tls", ...machine(), reps, settleMs };
for (const [name, runs] of Object.entries(samples)) {
  summary[name] = {
    turnStartToFirstDeltaMs: median(runs.map((run) => run.ms)),
    rssBeforeTurnMiB: median(runs.map((run) => run.rssMiB)),
    perRep: runs,
  };
}
const text = JSON.stringify(summary, null, 2);
const out = flag("--out");
if (out) writeFileSync(out, `${text}\n`);
console.log(text);
