#!/usr/bin/env node
// What the OS sandbox costs a bash call, in one run: `true` through the
// bash tool sandboxed against not (interleaved, median and p95), then a
// turn of 20 bash calls through the real server, with the sandbox on
// against `sandbox.mode: "off"`, the user accepting every call in both.
// Prints one JSON document. Goal (issue 27): under 15 ms added per call.
//   node bench/sandbox.mjs [--calls 200] [--turns 5]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppServerClient } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { BIN, median, percentile } from "./lib/measure.mjs";

const { createBashTool } = await import("@knightcode/agent/tools/bash");
const { ThreadSandbox } = await import("@knightcode/system/process/sandbox/thread-sandbox");
const { sandboxSupport } = await import("@knightcode/system/process/sandbox/support");
const { ProcessGroups } = await import("@knightcode/system/process/groups");
const { sandboxPlaces } = await import("@knightcode/agent/thread/thread-sandbox");

const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const CALLS = option("--calls", 200);
const TURNS = option("--turns", 5);
const CALLS_PER_TURN = 20;

const figures = (values) => ({ median: median(values), p95: percentile(values, 95) });

const home = mkdtempSync(join(tmpdir(), "kc-bench-sandbox-"));
const project = join(home, "project");
mkdirSync(project, { recursive: true });
execFileSync("git", ["init", "-q"], { cwd: project });

const probeStart = performance.now();
const support = await sandboxSupport();
const probeMs = +(performance.now() - probeStart).toFixed(2);
if (!support.available) {
  console.log(JSON.stringify({ sandbox: support, note: "the sandbox cannot run here; nothing to compare" }, null, 2));
  process.exit(0);
}

/** The bash tool of a thread, sandboxed or not, as a thread builds it. */
function bashTool(sandboxed) {
  const processes = new ProcessGroups();
  const sandbox = sandboxed
    ? new ThreadSandbox({
        folder: project,
        agentDir: join(home, "agent"),
        secretFiles: [],
        settings: () => ({ mode: "workspace", network: false, required: false }),
        unsandboxed: () => false,
        networkGranted: () => false,
        // As a thread computes them for every command: the cost of finding them is part of the sandbox's.
        places: (root) => sandboxPlaces({ root, cwd: project, agentDir: join(home, "agent"), cliExtensions: [], isTrusted: () => false }),
        support: () => sandboxSupport(),
      })
    : undefined;
  const tool = createBashTool({ cwd: project, processes, ...(sandbox ? { sandbox } : {}) });
  return {
    async call(id) {
      const start = performance.now();
      await tool.execute(`call-${id}`, { command: "true" });
      return performance.now() - start;
    },
    async close() {
      await processes.dispose();
      await sandbox?.dispose();
    },
  };
}

async function perCall() {
  const plain = bashTool(false);
  const boxed = bashTool(true);
  // One of each first: the private temporary folder, the page cache.
  await plain.call(0);
  await boxed.call(0);
  const times = { plain: [], sandboxed: [] };
  for (let i = 1; i <= CALLS; i++) {
    times.plain.push(await plain.call(i));
    times.sandboxed.push(await boxed.call(i));
  }
  await plain.close();
  await boxed.close();
  const added = times.sandboxed.map((ms, i) => ms - times.plain[i]);
  return { calls: CALLS, unsandboxedMs: figures(times.plain), sandboxedMs: figures(times.sandboxed), addedMs: figures(added) };
}

/** A server whose global settings turn the sandbox on or off; every approval is accepted. */
async function server(model, sandboxed) {
  const serverHome = mkdtempSync(join(home, "server-"));
  const agentDir = join(serverHome, "agent");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson()));
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ sandbox: { mode: sandboxed ? "workspace" : "off" } }));
  const env = { ...process.env, HOME: serverHome, KNIGHTCODE_CODING_AGENT_DIR: agentDir };
  delete env.NODE_EXTRA_CA_CERTS;
  const client = AppServerClient.spawn({ command: process.execPath, args: [BIN, "app-server"], env, stderr: "ignore", requestTimeoutMs: 60_000 });
  await client.initialize({ clientInfo: { name: "bench-sandbox" } });
  client.onRequest("item/toolCall/requestApproval", () => ({ decision: "accept" }));
  return client;
}

async function turns() {
  const model = await ScriptedModelServer.start();
  const result = {};
  for (const sandboxed of [false, true]) {
    const client = await server(model, sandboxed);
    const { thread } = await client.request("thread/start", { cwd: project, approvalMode: "ask" });
    const times = [];
    for (let turn = 0; turn <= TURNS; turn++) {
      const calls = Array.from({ length: CALLS_PER_TURN }, (_, i) => ({ id: `c${turn}_${i}`, name: "bash", arguments: { command: "true" } }));
      model.enqueue({ toolCalls: calls }, { text: "done" });
      const start = performance.now();
      const run = await client.runTurn(thread.id, "run them");
      await run.completed;
      // The first turn loads the agent run and the tools: left out.
      if (turn > 0) times.push(performance.now() - start);
    }
    await client.close();
    result[sandboxed ? "sandboxed" : "unsandboxed"] = figures(times);
  }
  await model.close();
  const addedPerCall = +((result.sandboxed.median - result.unsandboxed.median) / CALLS_PER_TURN).toFixed(2);
  return { callsPerTurn: CALLS_PER_TURN, turns: TURNS, turnMs: result, addedPerCallMs: addedPerCall };
}

try {
  const bash = await perCall();
  const turn = await turns();
  console.log(
    JSON.stringify(
      {
        sandbox: { kind: support.kind, binary: support.binary, probeMs },
        bashTrue: bash,
        turnOf20Calls: turn,
        goal: { addedPerCallMs: 15, met: bash.addedMs.median < 15 && turn.addedPerCallMs < 15 },
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(home, { recursive: true, force: true });
}
