#!/usr/bin/env node
// thread/diff/read on a change of 2,000 files, beside `git diff` itself on
// the same change in the same run. Prints one JSON document.
//
//   read     thread/diff/read (scope uncommitted, context 3) through the
//            built server binary and AppServerClient: the request's round
//            trip, from sending it to holding the parsed answer
//   gitDiff  `git diff HEAD` on the same repository, its whole output read
//            from a pipe: the floor under the read
//   answer   the answer's size, and how long the client takes to parse its
//            JSON: part of the read, with no counterpart in gitDiff
//
//   node bench/diff.mjs [--files 2000] [--reps 9]
//
// Goals: the read's median under 500 ms, within 2x of git diff's median, and
// (issue 31) at most 1.2x of it.
// The repository is made in a temporary folder and removed afterwards;
// the server runs from this checkout's build (npm run build first).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppServerClient, SpawnedServerTransport } from "../packages/app-server-client/dist/src/index.js";
import { flag } from "./lib/measure.mjs";

const fileCount = Number(flag("--files", "2000"));
const reps = Number(flag("--reps", "9"));
const BIN = fileURLToPath(new URL("../packages/cli/bin/knightcode.js", import.meta.url));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return +(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2).toFixed(1);
};

const home = mkdtempSync(join(tmpdir(), "kc-bench-diff-"));
const repo = join(home, "repo");
const gitEnv = {
  ...process.env,
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@b",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@b",
};
const git = (...argv) => execFileSync("git", argv, { cwd: repo, env: gitEnv, maxBuffer: 1 << 30 });

/** 2,000 files of 60 lines in 40 folders, committed; then each gets one line changed, one added and one removed. */
function makeChange() {
  mkdirSync(repo);
  git("init", "-q", "-b", "main");
  const line = (file, i) => `export const value${i} = "file ${file} line ${i}"; // some text to make the line look like code\n`;
  const pathOf = (file) => join(`dir${file % 40}`, `module-${file}.ts`);
  for (let file = 0; file < fileCount; file++) {
    mkdirSync(join(repo, `dir${file % 40}`), { recursive: true });
    writeFileSync(join(repo, pathOf(file)), Array.from({ length: 60 }, (_, i) => line(file, i)).join(""));
  }
  git("add", "-A");
  git("commit", "-q", "-m", "base");
  for (let file = 0; file < fileCount; file++) {
    const lines = Array.from({ length: 60 }, (_, i) => line(file, i));
    lines[10] = `export const changed${file} = true;\n`;
    lines.splice(30, 0, `export const added${file} = 1;\n`);
    lines.splice(50, 1);
    writeFileSync(join(repo, pathOf(file)), lines.join(""));
  }
}

function timeGitDiff() {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn("git", ["diff", "HEAD"], { cwd: repo, env: { ...gitEnv, GIT_PAGER: "cat" }, stdio: ["ignore", "pipe", "inherit"] });
    let bytes = 0;
    child.stdout.on("data", (chunk) => (bytes += chunk.length));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, bytes }) : reject(new Error(`git diff exited ${code}`)),
    );
  });
}

makeChange();
const transport = new SpawnedServerTransport({
  command: process.execPath,
  args: [BIN, "app-server"],
  cwd: home,
  env: { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, ".knightcode", "agent") },
  stderr: "inherit",
});
const client = new AppServerClient(transport, { requestTimeoutMs: 60_000 });
try {
  await client.initialize({ clientInfo: { name: "bench-diff", version: "0" } });
  const { thread } = await client.request("thread/start", { cwd: repo });
  const read = async () => {
    const started = process.hrtime.bigint();
    const answer = await client.request("thread/diff/read", { threadId: thread.id, scope: "uncommitted", context: 3 });
    return {
      ms: Number(process.hrtime.bigint() - started) / 1e6,
      answer,
      files: answer.files.length,
      hunks: answer.files.reduce((n, f) => n + f.hunks.length, 0),
    };
  };
  // One of each first: the server's thread layer and git's caches warm up.
  const first = await read();
  await timeGitDiff();
  const reads = [];
  const diffs = [];
  for (let i = 0; i < reps; i++) {
    // Alternating, so neither gets a quieter machine.
    reads.push((await read()).ms);
    diffs.push((await timeGitDiff()).ms);
  }
  // The client's share of a read: parsing the answer's JSON, which `git diff` has no counterpart of.
  const answerText = JSON.stringify(first.answer);
  const parses = [];
  for (let i = 0; i < reps; i++) {
    const started = process.hrtime.bigint();
    JSON.parse(answerText);
    parses.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const readMedian = median(reads);
  const gitMedian = median(diffs);
  const result = {
    files: fileCount,
    answeredFiles: first.files,
    hunks: first.hunks,
    cpus: cpus().length,
    read: { medianMs: readMedian, runsMs: reads.map((v) => +v.toFixed(1)) },
    gitDiff: { medianMs: gitMedian, runsMs: diffs.map((v) => +v.toFixed(1)) },
    ratio: +(readMedian / gitMedian).toFixed(2),
    answer: { bytes: answerText.length, clientParseMedianMs: median(parses) },
    goals: { under500ms: readMedian < 500, within2xOfGitDiff: readMedian <= 2 * gitMedian, atMost1_2xOfGitDiff: readMedian <= 1.2 * gitMedian },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  transport.close();
  await transport.exited.catch(() => undefined);
  rmSync(home, { recursive: true, force: true });
}
