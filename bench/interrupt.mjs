#!/usr/bin/env node
// Time from turn/interrupt to turn/completed: while a bash command runs, and
// while the model streams. Prints one JSON document. Uses the real server
// binary and the scripted model server on 127.0.0.1.
//   node bench/interrupt.mjs [--runs 20]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppServerClient } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";

const runsAt = process.argv.indexOf("--runs");
const runs = runsAt === -1 ? 20 : Number(process.argv[runsAt + 1]);
const bin = fileURLToPath(new URL("../packages/cli/bin/knightcode.js", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "kc-bench-interrupt-"));
const agentDir = join(home, "agent");
const project = join(home, "project");
mkdirSync(agentDir, { recursive: true });
mkdirSync(project, { recursive: true });
const model = await ScriptedModelServer.start();
writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson()));
const env = { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: agentDir };
delete env.NODE_EXTRA_CA_CERTS;
const client = AppServerClient.spawn({ command: process.execPath, args: [bin, "app-server"], env, stderr: "ignore", requestTimeoutMs: 30_000 });
await client.initialize({ clientInfo: { name: "bench-interrupt" } });
const { thread } = await client.request("thread/start", { cwd: project, approvalMode: "fullAccess" });

const events = [];
client.onAnyNotification((method, params) => events.push({ method, params, at: performance.now() }));
const waitFor = (test) =>
  new Promise((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error("timed out")), 20_000);
    const check = setInterval(() => {
      const found = events.find(test);
      if (found) {
        clearInterval(check);
        clearTimeout(deadline);
        resolve(found);
      }
    }, 1);
  });

async function once(reply, readyWhen) {
  events.length = 0;
  model.enqueue(reply);
  await client.request("turn/start", { threadId: thread.id, text: "go" });
  const started = await waitFor((e) => e.method === "turn/started");
  await waitFor(readyWhen);
  await new Promise((resolve) => setTimeout(resolve, 30));
  const t0 = performance.now();
  await client.request("turn/interrupt", { threadId: thread.id, turnId: started.params.turn.id });
  const answered = performance.now();
  const done = await waitFor((e) => e.method === "turn/completed" && e.params.turn.id === started.params.turn.id);
  if (done.params.turn.status !== "interrupted") throw new Error(`turn ended ${done.params.turn.status}`);
  return { completedMs: done.at - t0, answeredMs: answered - t0 };
}

function summary(samples) {
  const sorted = (key) => samples.map((s) => s[key]).sort((a, b) => a - b);
  const median = (v) => (v.length % 2 ? v[v.length >> 1] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2);
  const stat = (key) => ({ median: +median(sorted(key)).toFixed(1), min: +sorted(key)[0].toFixed(1), max: +sorted(key).at(-1).toFixed(1) });
  return { runs: samples.length, interruptToCompletedMs: stat("completedMs"), interruptAnsweredMs: stat("answeredMs") };
}

const bash = [];
const streaming = [];
for (let i = 0; i < runs; i++) {
  bash.push(
    await once(
      { toolCalls: [{ name: "bash", arguments: { command: "sleep 30 & sleep 30; wait" } }] },
      (e) => e.method === "item/started" && e.params.item.type === "toolCall",
    ),
  );
  streaming.push(await once({ text: Array.from({ length: 400 }, (_, k) => `token${k} `), chunkDelayMs: 20 }, (e) => e.method === "item/agentMessage/delta"));
}
await client.close();
await model.close();
rmSync(home, { recursive: true, force: true });
console.log(JSON.stringify({ bench: "interrupt", targetMedianMs: 100, runningBashTool: summary(bash), streamingModel: summary(streaming) }, null, 2));
