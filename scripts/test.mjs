#!/usr/bin/env node
// Runs every compiled test file (packages/*/dist/test/**/*.test.js) with
// Node's test runner. Arguments filter files by substring:
//   node scripts/test.mjs handshake fuzz
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function collect(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith(".test.js")) out.push(path);
  }
  return out;
}

/** A compiled test whose source was deleted or moved is stale output, not a test. */
function hasSource(file) {
  const rel = relative(root, file).split("/");
  const pkg = rel.indexOf("dist");
  return existsSync(join(root, ...rel.slice(0, pkg), ...rel.slice(pkg + 1)).replace(/\.js$/, ".ts"));
}

const filters = process.argv.slice(2);
const files = readdirSync(join(root, "packages"))
  .flatMap((pkg) => collect(join(root, "packages", pkg, "dist", "test"), []))
  .filter(hasSource)
  .filter((file) => filters.length === 0 || filters.some((f) => relative(root, file).includes(f)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
/**
 * Two runs: the browser tests of the desktop page (each file drives its own
 * Chromium, the heaviest work in the suite) go after the rest, fewer at a
 * time, so they never starve the protocol tests' timing of the CPU.
 */
const isBrowserTest = (file) => relative(root, file).startsWith(join("packages", "desktop", "dist", "test"));
const phases = [
  { files: files.filter((f) => !isBrowserTest(f)), concurrency: process.env.KNIGHTCODE_TEST_CONCURRENCY ?? "3" },
  { files: files.filter(isBrowserTest), concurrency: process.env.KNIGHTCODE_BROWSER_TEST_CONCURRENCY ?? "2" },
];
let status = 0;
for (const phase of phases) {
  if (phase.files.length === 0) continue;
  const result = spawnSync(
    process.execPath,
    ["--test", `--test-concurrency=${phase.concurrency}`, "--test-timeout=180000", "--test-reporter=spec", ...phase.files],
    { cwd: root, stdio: "inherit" },
  );
  if ((result.status ?? 1) !== 0) status = result.status ?? 1;
}
process.exit(status);
