#!/usr/bin/env node
// What sequenced events cost and what a replay takes. One server, one
// stdio connection per mode, the same scripted replies: turns of --deltas
// deltas relayed to a plain connection and to a sequenced one (`seq` on
// each notification, every notification kept in the thread's ring),
// alternating, --reps each. Then the replay: a sequenced WebSocket client
// drops after a turn's first delta, the rest of the reply streams while it
// is away, and a new connection resumes with afterSeq; the time from that
// request to the last replayed delta, and how many came. Memory: the
// server's heap (after a forced collection) before and after --threads threads each ran one turn of
// --deltas deltas with a sequenced subscriber (each holding its ring).
// Prints one JSON document. Needs a build (npm run build).
//
//   node bench/replay.mjs [--deltas 2000] [--reps 5] [--threads 20]
import { startListeningServer, waitFor } from "./lib/listening-server.mjs";

const { ScriptedModelServer } = await import(new URL("../packages/testkit/dist/src/index.js", import.meta.url));
const TOKEN = "replay-bench-token-0123456789abcdef0123";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const DELTAS = option("deltas", 2000);
const REPS = option("reps", 5);
const THREADS = option("threads", 20);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? undefined : +sorted[Math.floor(sorted.length / 2)].toFixed(2);
};

const model = await ScriptedModelServer.start();
// The inspector forces a full collection before each heap reading, so garbage does not pass for the rings.
const server = await startListeningServer({ name: "replay", modelsJson: model.modelsJson(), token: TOKEN });
const { main, cwd } = server;
const chunks = () => Array.from({ length: DELTAS }, (_, i) => `w${i} `);

try {
  const connect = (sequenced) => server.connect(sequenced ? { sequenced: true } : undefined);
  const relay = { plain: [], sequenced: [] };
  const clients = { plain: await connect(false), sequenced: await connect(true) };
  for (let rep = 0; rep < REPS; rep++) {
    for (const mode of rep % 2 === 0 ? ["plain", "sequenced"] : ["sequenced", "plain"]) relay[mode].push(await relayRate(clients[mode]));
  }
  const replay = [];
  for (let rep = 0; rep < REPS; rep++) replay.push(await replayOnce(connect));
  const memory = await ringMemory(clients.sequenced);
  for (const client of Object.values(clients)) await client.close();
  console.log(
    JSON.stringify(
      {
        deltas: DELTAS,
        reps: REPS,
        relayDeltasPerSec: { plain: median(relay.plain), sequenced: median(relay.sequenced) },
        replay: {
          missedDeltas: median(replay.map((r) => r.missed)),
          resumeToLastReplayedMs: median(replay.map((r) => r.ms)),
          allReplayed: replay.every((r) => r.replayed),
        },
        heapMiB: memory,
      },
      null,
      2,
    ),
  );
} finally {
  await server.close();
  await model.close();
}

/** One turn of DELTAS deltas: deltas per second from the first to turn/completed, as the client got them. */
async function relayRate(client) {
  const { thread } = await client.request("thread/start", { cwd });
  model.enqueue({ text: chunks() });
  let first;
  let count = 0;
  const off = client.onNotification("item/agentMessage/delta", (p) => {
    if (p.threadId !== thread.id) return;
    first ??= performance.now();
    count++;
  });
  const done = client.waitFor("turn/completed", (p) => p.threadId === thread.id, { timeoutMs: 120_000 });
  await client.request("turn/start", { threadId: thread.id, text: "go" });
  await done;
  const ms = performance.now() - first;
  off();
  await client.request("thread/unsubscribe", { threadId: thread.id });
  return (count / ms) * 1000;
}

/** A sequenced client drops after the first deltas; the rest streams meanwhile; a new one resumes after the last seq it saw. */
async function replayOnce(connect) {
  const first = await connect(true);
  const { thread } = await first.request("thread/start", { cwd });
  let release;
  model.enqueue({ text: chunks(), pauseAfter: 10, gate: new Promise((resolve) => (release = resolve)) });
  let lastSeq = 0;
  first.onAnyNotification((_method, params) => {
    if (params?.threadId === thread.id && typeof params.seq === "number") lastSeq = params.seq;
  });
  await first.request("turn/start", { threadId: thread.id, text: "go" });
  await waitFor(() => (lastSeq > 0 ? true : undefined));
  await first.close();
  // The rest of the reply streams to nobody; the thread's status says when it is over.
  const completed = main.waitFor("thread/turn/completed", (p) => p.threadId === thread.id, { timeoutMs: 120_000 });
  release();
  await completed;
  const second = await connect(true);
  let missed = 0;
  let resolveDone;
  const replayDone = new Promise((resolve) => (resolveDone = resolve));
  second.onAnyNotification((method, params) => {
    if (params?.threadId !== thread.id) return;
    if (method === "item/agentMessage/delta") missed++;
    if (method === "turn/completed") resolveDone();
  });
  const started = performance.now();
  const answer = await second.request("thread/resume", { threadId: thread.id, afterSeq: lastSeq });
  // Not replayed (the ring moved on): the answer is the snapshot and nothing follows it.
  if (answer.replayed === true) await replayDone;
  const ms = performance.now() - started;
  await second.close();
  return { missed, ms, replayed: answer.replayed === true };
}

/** The heap before and after THREADS threads each kept a turn of DELTAS deltas in their ring (they stay loaded while subscribed). */
async function ringMemory(client) {
  const heap = async () => {
    await server.inspector.collectGarbage();
    const { heapBytes } = await main.request("server/diagnostics", {});
    return +(heapBytes / 1024 / 1024).toFixed(1);
  };
  const before = await heap();
  for (let i = 0; i < THREADS; i++) {
    const { thread } = await client.request("thread/start", { cwd });
    model.enqueue({ text: chunks() });
    const done = client.waitFor("turn/completed", (p) => p.threadId === thread.id, { timeoutMs: 120_000 });
    await client.request("turn/start", { threadId: thread.id, text: "go" });
    await done;
  }
  const after = await heap();
  return { before, afterThreads: after, threads: THREADS, perThreadMiB: +((after - before) / THREADS).toFixed(2) };
}
