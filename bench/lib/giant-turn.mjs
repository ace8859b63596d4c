#!/usr/bin/env node
// One turn of many items (20,000 by default), running and then saved:
// thread/resume and thread/read from a second connection, their time, the
// server's RSS growth and the response size, and that the turn travels as a
// payloadRef whose payload holds every item. Imported by bench/scale.mjs;
// run alone it prints one JSON document.
//
//   node bench/lib/giant-turn.mjs [--items 20000] [--runs 7]
//
// Needs a build (npm run build). The model is the scripted server of
// @knightcode/testkit on 127.0.0.1: rounds of parallel `read` calls (read-only,
// allowed without approval), then an answer whose stream stays open, so the
// turn keeps running until the bench releases it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(repo, "packages", "cli", "bin", "knightcode.js");
const TOKEN = "giant-turn-bench-token-0123456789abcdef";

export const GIANT_TURN_GOALS = { resumeRunningMs: "< 100 ms", rssGrowthMiB: "< 32 MiB" };

const { median, mib, rssOf, timed } = await import("./measure.mjs");

/** The server on stdio (the connection that runs the turn) and listening on a WebSocket (the second connection). */
async function startServer(home, client) {
  const { AppServerClient, SpawnedServerTransport } = client;
  const env = { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, "agent") };
  delete env.NODE_EXTRA_CA_CERTS;
  // GIANT_TURN_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server.
  const nodeArgs = (process.env.GIANT_TURN_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const args = [...nodeArgs, BIN, "app-server", "--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN];
  const transport = new SpawnedServerTransport({ command: process.execPath, args, env, stderr: "pipe" });
  let log = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not listen:\n${log}`)), 60_000);
    transport.child.stderr.on("data", (chunk) => {
      log = (log + chunk.toString("utf8")).slice(-8192);
      const found = /listening on (ws:\S+)/.exec(log);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
  });
  const main = new AppServerClient(transport, { requestTimeoutMs: 600_000 });
  await main.initialize({ clientInfo: { name: "bench-giant-main", version: "0" } });
  const second = await AppServerClient.connectWebSocket({ url, token: TOKEN, requestTimeoutMs: 600_000 });
  await second.initialize({ clientInfo: { name: "bench-giant-second", version: "0" } });
  return {
    main,
    second,
    pid: transport.child.pid,
    async close() {
      second.close?.();
      transport.close();
      await transport.exited;
    },
  };
}

/** Resolves once `test()` holds, checking every few milliseconds. */
function until(test, timeoutMs, what) {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const check = setInterval(() => {
      if (test()) {
        clearInterval(check);
        resolve();
      } else if (Date.now() > deadline) {
        clearInterval(check);
        reject(new Error(`timed out waiting for ${what}`));
      }
    }, 5);
  });
}

/** Every item of a turn as the wire gave it, reading its payload when it is a reference. */
async function itemsOf(client, readPayload, turn) {
  if (!turn.payloadRef) return { viaRef: false, items: turn.items ?? [] };
  const whole = JSON.parse((await readPayload(client, turn.payloadRef)).toString("utf8"));
  return { viaRef: true, payloadBytes: turn.payloadRef.bytes, items: whole.items ?? [] };
}

/** Items in index order, every nested call after its parent: what the spec promises a snapshot holds. */
function inOrder(items) {
  let last = -1;
  for (const item of items) {
    if (item.index === undefined) continue;
    if (item.index <= last) return false;
    last = item.index;
  }
  return true;
}

/**
 * Runs the whole measurement: a turn of `items` items kept running, then
 * completed. Answers the figures with the goals beside them.
 */
export async function measureGiantTurn({ items = 20_000, runs = 7, perRound = 1000 } = {}) {
  const client = await import(new URL("../../packages/app-server-client/dist/src/index.js", import.meta.url));
  const { ScriptedModelServer } = await import(new URL("../../packages/testkit/dist/src/index.js", import.meta.url));
  const { readPayload } = client;
  const home = mkdtempSync(join(tmpdir(), "kc-bench-giant-"));
  const project = join(home, "project");
  mkdirSync(join(home, "agent"), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "a.txt"), "alpha\n");
  const model = await ScriptedModelServer.start();
  // A large context window: the bench measures the turn, not compaction.
  writeFileSync(
    join(home, "agent", "models.json"),
    JSON.stringify(model.modelsJson({ models: [{ id: "scripted-model", contextWindow: 100_000_000, maxTokens: 16_384 }] })),
  );
  const server = await startServer(home, client);
  const { main, second, pid } = server;
  try {
    const calls = items - 2; // the user's message and the held answer are items too
    const rounds = Math.ceil(calls / perRound);
    let callNo = 0;
    for (let round = 0; round < rounds; round++) {
      const count = Math.min(perRound, calls - round * perRound);
      const toolCalls = Array.from({ length: count }, () => ({ id: `call_${callNo++}`, name: "read", arguments: { path: "a.txt" } }));
      model.enqueue({ toolCalls, usage: { input: 100, output: 10 } });
    }
    let release;
    model.enqueue({ text: ["holding ", "the turn ", "open"], pauseAfter: 3, gate: new Promise((resolve) => (release = resolve)) });

    const { thread } = await main.request("thread/start", { cwd: project, approvalMode: "fullAccess" });
    let completed = 0;
    let turnDone;
    main.onAnyNotification((method, params) => {
      if (method === "item/completed" && params.threadId === thread.id) completed++;
      if (method === "turn/completed" && params.threadId === thread.id) turnDone = params.turn;
    });
    const fillStart = performance.now();
    await main.request("turn/start", { threadId: thread.id, text: "read a.txt many times" });
    // Every call and the user's message completed, and the held answer asked for.
    await until(() => completed >= calls + 1 && model.requests.length >= rounds + 1, 1_800_000, `${calls} completed calls`);
    await until(() => (model.requests.at(-1)?.firstByteAt ?? 0) > 0, 60_000, "the held answer");
    const fillSeconds = +((performance.now() - fillStart) / 1000).toFixed(1);

    // RUNNING: resume from the second connection, unsubscribing between.
    const rssBefore = rssOf(pid);
    const first = await timed(() => second.request("thread/resume", { threadId: thread.id }));
    const rssAfterFirst = rssOf(pid);
    const responseBytes = Buffer.byteLength(JSON.stringify(first.value));
    const running = first.value.runningTurn;
    const resolved = await itemsOf(second, readPayload, running);
    const times = [];
    let rssPeak = rssAfterFirst;
    for (let i = 0; i < runs; i++) {
      await second.request("thread/unsubscribe", { threadId: thread.id });
      times.push((await timed(() => second.request("thread/resume", { threadId: thread.id }))).ms);
      rssPeak = Math.max(rssPeak, rssOf(pid));
    }
    const rssAfter = rssOf(pid);
    const result = {
      items,
      fillSeconds,
      running: {
        resumeFirstMs: first.ms,
        resumeMedianMs: median(times),
        resumeMaxMs: Math.max(...times),
        goalMs: GIANT_TURN_GOALS.resumeRunningMs,
        responseKiB: +(responseBytes / 1024).toFixed(1),
        runningTurnIsPayloadRef: resolved.viaRef,
        payloadMiB: resolved.payloadBytes === undefined ? undefined : mib(resolved.payloadBytes),
        payloadItems: resolved.items.length,
        allItemsInPayload: resolved.items.length === items,
        itemsInIndexOrder: inOrder(resolved.items),
        rssBeforeMiB: mib(rssBefore),
        rssGrowthFirstMiB: mib(rssAfterFirst - rssBefore),
        rssGrowthMiB: mib(Math.max(rssAfter, rssPeak) - rssBefore),
        rssGoal: GIANT_TURN_GOALS.rssGrowthMiB,
      },
    };

    // SAVED: the same turn once it completed.
    release();
    await until(() => turnDone !== undefined, 600_000, "turn/completed");
    await second.request("thread/unsubscribe", { threadId: thread.id });
    const rssSavedBefore = rssOf(pid);
    const read = await timed(() => second.request("thread/read", { threadId: thread.id }));
    const rssAfterRead = rssOf(pid);
    let savedPeak = rssAfterRead;
    const reads = [];
    for (let i = 0; i < runs; i++) {
      reads.push((await timed(() => second.request("thread/read", { threadId: thread.id }))).ms);
      savedPeak = Math.max(savedPeak, rssOf(pid));
    }
    const savedTurn = read.value.turns.at(-1);
    const saved = await itemsOf(second, readPayload, savedTurn);
    const resumes = [];
    let resumed;
    for (let i = 0; i < runs; i++) {
      const run = await timed(() => second.request("thread/resume", { threadId: thread.id }));
      resumes.push(run.ms);
      resumed = run.value;
      savedPeak = Math.max(savedPeak, rssOf(pid));
      await second.request("thread/unsubscribe", { threadId: thread.id });
    }
    const rssSavedAfter = rssOf(pid);
    result.saved = {
      // The saved turn has no held answer's stream: the answer completed, so its items are the same count.
      threadReadFirstMs: read.ms,
      threadReadMedianMs: median(reads),
      threadReadPageKiB: +(Buffer.byteLength(JSON.stringify(read.value)) / 1024).toFixed(1),
      threadResumeMedianMs: median(resumes),
      threadResumePageKiB: +(Buffer.byteLength(JSON.stringify(resumed)) / 1024).toFixed(1),
      goalMs: GIANT_TURN_GOALS.resumeRunningMs,
      turnIsPayloadRef: saved.viaRef,
      payloadItems: saved.items.length,
      allItemsInPayload: saved.items.length === items,
      itemsInIndexOrder: inOrder(saved.items),
      rssGrowthFirstReadMiB: mib(rssAfterRead - rssSavedBefore),
      // RSS moves with garbage collection: the end figure can be below the start, so the peak is given too.
      rssGrowthMiB: mib(rssSavedAfter - rssSavedBefore),
      rssPeakGrowthMiB: mib(Math.max(savedPeak, rssSavedAfter) - rssSavedBefore),
      rssGoal: GIANT_TURN_GOALS.rssGrowthMiB,
    };
    result.rssAtEndMiB = mib(rssOf(pid));
    return result;
  } finally {
    await server.close();
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const flag = (name, fallback) => {
    const at = args.indexOf(`--${name}`);
    return at === -1 ? fallback : Number(args[at + 1]);
  };
  const result = await measureGiantTurn({ items: flag("items", 20_000), runs: flag("runs", 7), perRound: flag("per-round", 1000) });
  console.log(JSON.stringify({ bench: "giant-turn", goals: GIANT_TURN_GOALS, ...result }, null, 2));
}
