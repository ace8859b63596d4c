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
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const reps = flag("--reps", "3");
const withCodex = !args.includes("--no-codex");
const harnessSource = process.env.KNIGHTCODE_PEER_HARNESS ?? join(repo, "..", "shared", "bench", "codex-peer");
if (!existsSync(join(harnessSource, "appserver-bench.mjs"))) {
  console.error(`peer harness not found at ${harnessSource}; set KNIGHTCODE_PEER_HARNESS`);
  process.exit(2);
}
const benchDir = process.env.BENCH_DIR ?? "/tmp/knightcode-peer-bench";
const harness = join(benchDir, "harness");
mkdirSync(benchDir, { recursive: true });
cpSync(harnessSource, harness, { recursive: true });
spawnSync("chmod", ["-R", "u+w", harness]);
cpSync(join(repo, "bench", "peer", "knightcode-profile.json"), join(harness, "profiles", "knightcode.json"));
cpSync(join(repo, "bench", "peer", "knightcode-models.json.tmpl"), join(harness, "profiles", "knightcode-models.json.tmpl"));

// A desktop app starts the server with the user's environment; this sandbox sets
// NODE_EXTRA_CA_CERTS, which makes every Node process parse a CA bundle at start.
const env = { ...process.env, BENCH_DIR: benchDir };
delete env.NODE_EXTRA_CA_CERTS;
const common = ["--reps", reps, "--skip", "list", "--deltas", "1,100,2000", "--rss-threads", "100"];

function run(label, command, commandArgs) {
  const out = join(benchDir, `${label}.json`);
  const result = spawnSync(command, [...commandArgs, ...common, "--out", out], { cwd: harness, env, stdio: ["ignore", "ignore", "inherit"] });
  if (result.status !== 0) throw new Error(`${label} bench failed (${result.status})`);
  return JSON.parse(readFileSync(out, "utf8"));
}

const ours = run("knightcode", "unshare", [
  "-n", "bash", "-c", 'ip link set lo up && exec "$@"', "_",
  process.execPath, "appserver-bench.mjs", "--profile", "profiles/knightcode.json",
  "--set", `KNIGHTCODE_BIN=${join(repo, "packages", "cli", "bin", "knightcode.js")}`,
  "--set", `NODE_BIN=${process.execPath}`,
]);
function installCodex() {
  // The harness installs Codex itself, but its lookup fails under `set -e` before the first install.
  if (existsSync(join(benchDir, "node_modules", "@openai", "codex"))) return;
  if (!existsSync(join(benchDir, "package.json"))) writeFileSync(join(benchDir, "package.json"), "{}\n");
  const npm = spawnSync("npm", ["i", "--no-audit", "--no-fund", "@openai/codex@0.169.0"], { cwd: benchDir, stdio: ["ignore", "ignore", "inherit"] });
  if (npm.status !== 0) throw new Error("could not install @openai/codex@0.169.0");
}

if (withCodex) installCodex();
const codex = withCodex ? run("codex", "bash", ["run-codex-bench.sh"]) : undefined;

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
    rssPerThreadMiB: m.rss?.perThreadKB && +(m.rss.perThreadKB / 1024).toFixed(2),
  };
};
const summary = { bench: "turns", reps: Number(reps), knightcode: pick(ours), codex: pick(codex), raw: { knightcode: ours.median ?? ours, ...(codex ? { codex: codex.median ?? codex } : {}) } };
const text = JSON.stringify(summary, null, 2);
const out = flag("--out");
if (out) writeFileSync(out, text + "\n");
console.log(text);
