#!/usr/bin/env node
// file/search on a generated tree of 100,000 files in a git repository,
// beside Codex's fuzzyFileSearch on the same tree. Prints one JSON document.
//
//   first    the first search of a fresh process, 300 ms after the
//            handshake: ours lists the tree with fd, Codex walks it
//   repeat   the same query again, 10 times, a second after the first
//            answer; ours answers from its ten-second listing cache, Codex
//            walks again (it keeps no listing between requests)
//   fdAlone  (context) fd by itself on the tree with the server's
//            arguments, output to /dev/null: the floor under our first search
//
//   node bench/search.mjs [--reps 5] [--files 100000] [--query config] [--no-codex] [--out result.json]
//
// Each rep is a fresh process of each server, on a fresh home, in turn
// (which goes first alternates); the tree is made once and kept in
// BENCH_DIR (default /tmp/knightcode-peer-bench). Both run inside a
// loopback-only network namespace; Codex never runs outside one, so
// without `unshare` the Codex half is skipped. KNIGHTCODE_PEER_HARNESS
// overrides where the peer harness is (its Codex config is used);
// the server runs from this checkout's build (npm run build first).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { flag, hasFlag } from "./lib/measure.mjs";
import { preparePeer } from "./lib/peer.mjs";

const reps = Number(flag("--reps", "5"));
const fileCount = Number(flag("--files", "100000"));
const query = flag("--query", "config");
const withCodex = !hasFlag("--no-codex");
const repeats = 10;

const repo = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(repo, "packages", "cli", "bin", "knightcode.js");
const DRIVER = join(repo, "bench", "peer", "search-driver.mjs");
const benchDir = process.env.BENCH_DIR ?? "/tmp/knightcode-peer-bench";

const median = (values) => {
  const sorted = values.filter((v) => typeof v === "number" && Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = sorted.length >> 1;
  return +(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2).toFixed(1);
};
const round = (values) => values.map((v) => (typeof v === "number" ? +v.toFixed(1) : v));

/**
 * A project-like tree: about 7,000 folders four levels deep, file names of
 * words, camelCase and numbers, ten extensions; the same every time.
 */
function makeTree(root, count) {
  const ready = `${root}.ready`;
  if (existsSync(ready) && readFileSync(ready, "utf8") === `v1 ${count}\n`) return;
  rmSync(root, { recursive: true, force: true });
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = (list) => list[Math.floor(random() * list.length)];
  const words =
    "src lib components utils config test api server client models views hooks core shared internal common routes handlers services store state auth user account billing search index main app session thread turn payload schema protocol agent tools settings trust extension resource dialog widget theme render parser lexer token cache queue worker event stream buffer".split(
      " ",
    );
  const extensions = ["ts", "tsx", "js", "json", "md", "rs", "go", "py", "css", "test.ts"];
  const folderName = () => pick(words) + (random() < 0.3 ? `-${pick(words)}` : "");
  const folders = [];
  const grow = (prefix, depth) => {
    folders.push(prefix);
    if (depth === 4) return;
    const names = new Set();
    while (names.size < (depth === 0 ? 12 : 8)) names.add(folderName());
    for (const name of names) grow(prefix === "" ? name : `${prefix}/${name}`, depth + 1);
  };
  grow("", 0);
  const files = new Set();
  while (files.size < count) {
    const folder = pick(folders);
    const camel = random() < 0.6 ? pick(words).replace(/^./, (c) => c.toUpperCase()) : "";
    const number = random() < 0.3 ? String(Math.floor(random() * 100)) : "";
    const name = `${pick(words)}${camel}${number}.${pick(extensions)}`;
    files.add(folder === "" ? name : `${folder}/${name}`);
  }
  const made = new Set();
  for (const file of files) {
    const dir = dirname(join(root, file));
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(join(root, file), "");
  }
  if (spawnSync("git", ["init", "-q"], { cwd: root }).status !== 0) throw new Error("git init failed in the bench tree");
  writeFileSync(ready, `v1 ${count}\n`);
}

/** fd by itself on the tree, with the server's arguments and its output thrown away: the floor under our first search. */
const fdProgram = ["fd", "fdfind"].find((name) => spawnSync(name, ["--version"]).status === 0);
function fdAlone(tree) {
  if (!fdProgram) throw new Error("fd (or fdfind) is not on PATH");
  const start = process.hrtime.bigint();
  const run = spawnSync(fdProgram, ["--type", "f", "--type", "l", "--hidden", "--exclude", ".git", "--color", "never", "--print0"], {
    cwd: tree,
    stdio: "ignore",
  });
  if (run.status !== 0) throw new Error(`fd failed on the bench tree (${run.status})`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const canIsolate = spawnSync("unshare", ["-n", "true"]).status === 0 && spawnSync("ip", ["-V"]).status === 0;

/** One fresh server process through the driver, in a loopback-only namespace when one can be made. */
function drive(config) {
  const node = [process.execPath, DRIVER, JSON.stringify(config)];
  const command = canIsolate ? ["unshare", "-n", "bash", "-c", 'ip link set lo up && exec "$@"', "_", ...node] : node;
  const run = spawnSync(command[0], command.slice(1), { encoding: "utf8", maxBuffer: 1 << 20 });
  if (run.status !== 0) throw new Error(`driver failed (${run.status}): ${run.stderr}`);
  const result = JSON.parse(run.stdout.trim().split("\n").pop());
  if (result.error) throw new Error(result.error);
  return result;
}

function ours(tree, runDir, rep) {
  const home = mkdtempSync(join(runDir, `knightcode-${rep}-`));
  return drive({
    cmd: process.execPath,
    args: [BIN, "app-server"],
    cwd: tree,
    env: { PATH: process.env.PATH, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, "agent"), TMPDIR: home },
    initialize: { clientInfo: { name: "search_bench", version: "0" } },
    method: "file/search",
    params: { cwd: tree, query: "$QUERY", limit: 50 },
    query,
    repeats,
    settleMs: 300,
    pauseMs: 1000,
  });
}

/** The Codex the peer harness installs, with the harness's isolated config (no model is ever asked). */
function codexSetUp() {
  preparePeer({ withCodex: true });
  const modules = join(benchDir, "node_modules", "@openai");
  const platform = readdirSync(modules).find((name) => name.startsWith("codex-linux-"));
  if (!platform) throw new Error(`no Codex binary under ${modules}`);
  const vendor = join(modules, platform, "vendor");
  const bin = join(vendor, readdirSync(vendor)[0], "bin", "codex");
  const template = readFileSync(join(benchDir, "harness", "profiles", "codex-config.toml.tmpl"), "utf8");
  const config = template.replaceAll("${MOCK_BASE_URL}", "http://127.0.0.1:9/v1").replaceAll("${SHELL_SNAPSHOT}", "false");
  return { bin, config };
}

function codex(setUp, tree, runDir, rep) {
  const home = mkdtempSync(join(runDir, `codex-${rep}-`));
  mkdirSync(join(home, "tmp"));
  writeFileSync(join(home, "config.toml"), setUp.config);
  return drive({
    cmd: setUp.bin,
    args: ["app-server"],
    cwd: tree,
    env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, MOCK_API_KEY: "dummy-key-not-secret", TMPDIR: join(home, "tmp") },
    initialize: {
      clientInfo: { name: "search_bench", title: "search bench", version: "0" },
      capabilities: { experimentalApi: false, requestAttestation: false },
    },
    method: "fuzzyFileSearch",
    params: { query: "$QUERY", roots: [tree], cancellationToken: null },
    query,
    repeats,
    settleMs: 300,
    pauseMs: 1000,
  });
}

function summary(results) {
  return {
    firstMs: median(results.map((r) => r.firstMs)),
    repeatMs: median(results.flatMap((r) => r.repeatMs)),
    repeatMaxMs: +Math.max(...results.flatMap((r) => r.repeatMs)).toFixed(1),
    files: results[0]?.files,
    top: results[0]?.top,
    perRep: { firstMs: round(results.map((r) => r.firstMs)), repeatMedianMs: results.map((r) => median(r.repeatMs)) },
  };
}

mkdirSync(benchDir, { recursive: true });
const tree = join(benchDir, `search-tree-${fileCount}`);
makeTree(tree, fileCount);
const runDir = mkdtempSync(join(benchDir, "search-run-"));
const codexReady = withCodex && canIsolate ? codexSetUp() : undefined;
// One walk before the reps, so that every measured walk finds the tree in the page cache.
spawnSync("find", [tree, "-type", "f"], { stdio: "ignore" });

const started = loadavg().map((l) => +l.toFixed(2));
const mine = [];
const theirs = [];
const fdTimes = [];
for (let rep = 0; rep < reps; rep++) {
  fdTimes.push(fdAlone(tree));
  const order = rep % 2 === 0 ? ["ours", "codex"] : ["codex", "ours"];
  for (const who of order) {
    if (who === "ours") mine.push(ours(tree, runDir, rep));
    else if (codexReady) theirs.push(codex(codexReady, tree, runDir, rep));
  }
}
rmSync(runDir, { recursive: true, force: true });

const result = {
  bench: "search",
  files: fileCount,
  query,
  reps,
  repeatsPerRep: repeats,
  node: process.version,
  cpu: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
  isolated: canIsolate,
  loadAverageAtStart: started,
  goals: { firstMs: "at most Codex's", repeatMs: "under 30" },
  knightcode: summary(mine),
  context: { fdAloneMs: median(fdTimes), fdAlonePerRepMs: round(fdTimes), fd: spawnSync(fdProgram, ["--version"], { encoding: "utf8" }).stdout.trim() },
};
if (codexReady) result.codex = summary(theirs);
else if (withCodex) result.codex = "skipped: no loopback-only network namespace here (unshare -n needs root), and Codex runs only inside one";
result.met = {
  firstAtMostCodex: codexReady ? result.knightcode.firstMs <= result.codex.firstMs : null,
  repeatUnder30: result.knightcode.repeatMs < 30,
};
result.loadAverageAtEnd = loadavg().map((l) => +l.toFixed(2));
const text = JSON.stringify(result, null, 2);
const out = flag("--out");
if (out) writeFileSync(out, `${text}\n`);
console.log(text);
