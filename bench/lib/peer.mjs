// The shared peer harness (../shared/bench/codex-peer): a copy with our
// profile beside Codex's, Codex installed from npm when missing, and a
// runner that puts our server inside a loopback-only network namespace as
// the harness's wrapper does for Codex.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(repo, "packages", "cli", "bin", "knightcode.js");

/** Copies the harness into BENCH_DIR with our profile; installs Codex 0.169.0 there when `withCodex`. */
export function preparePeer({ withCodex }) {
  const source = process.env.KNIGHTCODE_PEER_HARNESS ?? join(repo, "..", "shared", "bench", "codex-peer");
  if (!existsSync(join(source, "appserver-bench.mjs"))) throw new Error(`peer harness not found at ${source}; set KNIGHTCODE_PEER_HARNESS`);
  const benchDir = process.env.BENCH_DIR ?? "/tmp/knightcode-peer-bench";
  const harness = join(benchDir, "harness");
  mkdirSync(benchDir, { recursive: true });
  cpSync(source, harness, { recursive: true });
  spawnSync("chmod", ["-R", "u+w", harness]);
  cpSync(join(repo, "bench", "peer", "knightcode-profile.json"), join(harness, "profiles", "knightcode.json"));
  cpSync(join(repo, "bench", "peer", "knightcode-models.json.tmpl"), join(harness, "profiles", "knightcode-models.json.tmpl"));
  // The harness installs Codex itself, but its lookup fails under `set -e` before the first install.
  if (withCodex && !existsSync(join(benchDir, "node_modules", "@openai", "codex"))) {
    if (!existsSync(join(benchDir, "package.json"))) writeFileSync(join(benchDir, "package.json"), "{}\n");
    const npm = spawnSync("npm", ["i", "--no-audit", "--no-fund", "@openai/codex@0.169.0"], { cwd: benchDir, stdio: ["ignore", "ignore", "inherit"] });
    if (npm.status !== 0) throw new Error("could not install @openai/codex@0.169.0");
  }
  // A desktop app starts the server with the user's environment; this sandbox sets
  // NODE_EXTRA_CA_CERTS, which makes every Node process parse a CA bundle at start.
  const env = { ...process.env, BENCH_DIR: benchDir };
  delete env.NODE_EXTRA_CA_CERTS;

  const run = (label, command, args, harnessArgs) => {
    const out = join(benchDir, `${label}.json`);
    const result = spawnSync(command, [...args, ...harnessArgs, "--out", out], { cwd: harness, env, stdio: ["ignore", "ignore", "inherit"] });
    if (result.status !== 0) throw new Error(`${label} bench failed (${result.status})`);
    return JSON.parse(readFileSync(out, "utf8"));
  };
  return {
    /** Our server (this checkout's build, or `bin`) through the harness, in its own loopback-only namespace. */
    ours: (label, harnessArgs, bin = BIN) =>
      run(
        label,
        "unshare",
        [
          "-n",
          "bash",
          "-c",
          'ip link set lo up && exec "$@"',
          "_",
          process.execPath,
          "appserver-bench.mjs",
          "--profile",
          "profiles/knightcode.json",
          "--set",
          `KNIGHTCODE_BIN=${bin}`,
          "--set",
          `NODE_BIN=${process.execPath}`,
        ],
        harnessArgs,
      ),
    /** Codex through the harness's own wrapper. */
    codex: (label, harnessArgs) => run(label, "bash", ["run-codex-bench.sh"], harnessArgs),
  };
}
