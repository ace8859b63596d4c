// What the benches that drive a real server share: figures (median, MiB,
// a process's RSS, a timed call) and a server on a sessions folder as a
// desktop app spawns it, with a walk through every page of thread/list.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = join(repo, "packages", "cli", "bin", "knightcode.js");

/** The value given after `name` (as `--reps 9`) on this process's command line; `fallback` when it is not there. */
export function flag(name, fallback) {
  const at = process.argv.indexOf(name, 2);
  return at === -1 ? fallback : process.argv[at + 1];
}

/** Whether `name` (as `--no-codex`) is on this process's command line. */
export const hasFlag = (name) => process.argv.includes(name, 2);

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return +(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2).toFixed(2);
};

/** The nearest-rank percentile `p` of `values`; null when there are none. */
export const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return +sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(2);
};

export const mib = (bytes) => +(bytes / 2 ** 20).toFixed(1);

/** What a result says of the machine it ran on; read it when the bench starts, so the load is the start's. */
export function machine() {
  return {
    node: process.version,
    cpu: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
    loadAverageAtStart: loadavg().map((l) => +l.toFixed(2)),
  };
}

/** A process's resident memory, in bytes, from /proc. */
export function rssOf(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
}

export async function timed(run) {
  const start = performance.now();
  const value = await run();
  return { ms: +(performance.now() - start).toFixed(2), value };
}

/**
 * A server on a sessions folder, as a desktop app would spawn it (no CA
 * bundle to parse), with a home of its own; `agentFiles` (name -> text) are
 * written to its agent folder first, as a models.json naming its models.
 */
export async function startServer(sessionDir, { clientName = "bench", requestTimeoutMs = 120_000, agentFiles = {} } = {}) {
  const { AppServerClient, SpawnedServerTransport } = await import(new URL("../../packages/app-server-client/dist/src/index.js", import.meta.url));
  const home = mkdtempSync(join(tmpdir(), "kc-bench-home-"));
  const agentDir = join(home, "agent");
  mkdirSync(agentDir, { recursive: true });
  for (const [name, text] of Object.entries(agentFiles)) writeFileSync(join(agentDir, name), text);
  const env = { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: agentDir };
  delete env.NODE_EXTRA_CA_CERTS;
  const transport = new SpawnedServerTransport({ command: process.execPath, args: [BIN, "app-server", "--session-dir", sessionDir], env, stderr: "ignore" });
  const client = new AppServerClient(transport, { requestTimeoutMs });
  await client.initialize({ clientInfo: { name: clientName, version: "0" } });
  return {
    client,
    pid: transport.child.pid,
    async close() {
      transport.close();
      await transport.exited;
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Every page of thread/list, 50 at a time. */
export async function walk(client) {
  let pages = 0;
  let threads = 0;
  let cursor;
  do {
    const page = await client.request("thread/list", { limit: 50, ...(cursor ? { cursor } : {}) });
    pages++;
    threads += page.threads.length;
    cursor = page.nextCursor;
  } while (cursor);
  return { pages, threads };
}
