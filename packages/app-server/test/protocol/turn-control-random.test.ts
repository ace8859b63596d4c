import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RequestId } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { TestServer, startServer, type TestClient } from "../support/harness.js";
import { Random, seedFromEnv } from "../support/random.js";

const TOKEN = "random-token";
const INTERLEAVINGS = Number(process.env.INTERLEAVINGS ?? 1000);
const PARALLEL = 8;
const BASE_SEED = seedFromEnv("INTERLEAVING_SEED", 7_000);

let model: ScriptedModelServer;
let server: TestServer;
let url: string;
let cwd: string;

before(async () => {
  model = await ScriptedModelServer.start();
  // Every reply streams a little, with small random pauses: starts, steers and interrupts race for real.
  model.setFallback((request) => {
    const random = new Random(request.index + 1);
    return {
      text: Array.from({ length: 1 + random.int(4) }, (_, i) => `w${i} `),
      firstByteDelayMs: random.int(15),
      chunkDelayMs: random.int(6),
    };
  });
  server = await startServer({ model, args: ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN] });
  url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  cwd = server.project();
});
after(async () => {
  await server.close();
  await model.close();
});

interface Accepted {
  kind: "start" | "steer" | "queue";
  text: string;
  expectedTurnId?: string;
}

interface Outcome {
  seed: number;
  problems: string[];
  counts?: Record<string, number>;
}

async function connect(): Promise<TestClient> {
  const client = await server.connectWebSocket(url, TOKEN);
  await client.initialize(["item/agentMessage/delta"]);
  return client;
}

/** One seeded interleaving of starts, steers, queue adds and removes, interrupts and a disconnect on one thread. */
async function interleaving(seed: number): Promise<Outcome> {
  const random = new Random(seed);
  const problems: string[] = [];
  const observer = await connect();
  let actor = await connect();
  const actors: TestClient[] = [actor];
  const { thread } = await observer.request("thread/start", { cwd, approvalMode: "fullAccess" });
  const threadId = thread.id;
  const running = () => {
    const started = observer.notificationsOf("turn/started").filter((p) => p.threadId === threadId).map((p) => p.turn.id);
    const done = new Set(observer.notificationsOf("turn/completed").filter((p) => p.threadId === threadId).map((p) => p.turn.id));
    return started.filter((id) => !done.has(id)).at(-1);
  };
  const accepted: Accepted[] = [];
  const removed = new Set<string>();
  const queueIds = new Map<string, string>();
  const pending: Promise<unknown>[] = [];
  let n = 0;
  const ops = 4 + random.int(7);
  for (let i = 0; i < ops; i++) {
    const text = `input-${seed}-${n++}`;
    const client = actor;
    const send = <T>(promise: Promise<T>, onOk: (value: T) => void) => {
      pending.push(
        promise.then(onOk, (error: unknown) => {
          const code = (error as { code?: string }).code;
          const allowed = ["turnInProgress", "turnMismatch", "invalidParams"];
          if (!(error instanceof Error && "kind" in error) && !allowed.includes(code ?? "")) problems.push(`${text}: unexpected error ${String(error)}`);
        }),
      );
    };
    switch (random.pick(["start", "start", "steer", "steer", "queue", "remove", "interrupt", "disconnect"] as const)) {
      case "start":
        send(client.request("turn/start", { threadId, text }), (r) => r.status === "started" && accepted.push({ kind: "start", text }));
        break;
      case "steer": {
        const expectedTurnId = random.chance(0.8) ? (running() ?? "none") : "stale-turn";
        send(client.request("turn/steer", { threadId, text, expectedTurnId }), (r) => r.status === "steered" && accepted.push({ kind: "steer", text, expectedTurnId }));
        break;
      }
      case "queue":
        send(client.request("turn/queue/add", { threadId, text }), (r) => {
          queueIds.set(r.queueId, text);
          accepted.push({ kind: "queue", text });
        });
        break;
      case "remove": {
        const ids = [...queueIds.keys()];
        if (ids.length === 0) break;
        const queueId = random.pick(ids);
        send(client.request("turn/queue/remove", { threadId, queueId }), (r) => r.removed && removed.add(queueIds.get(queueId)!));
        break;
      }
      case "interrupt": {
        const turnId = random.chance(0.5) ? running() : undefined;
        send(client.request("turn/interrupt", { threadId, ...(turnId ? { turnId } : {}) }), () => undefined);
        break;
      }
      case "disconnect":
        await client.client.close();
        actor = await connect();
        actors.push(actor);
        await actor.request("thread/resume", { threadId });
        break;
    }
    await new Promise((resolve) => setTimeout(resolve, random.int(12)));
  }
  await Promise.all(pending);
  // Settle: nothing running, nothing queued, twice in a row (a queued input may start between two looks).
  let quiet = 0;
  let resumed!: Awaited<ReturnType<typeof observer.request<"thread/resume">>>;
  const deadline = Date.now() + 20_000;
  while (quiet < 2) {
    if (Date.now() > deadline) throw new Error(`thread ${threadId} did not settle (seed ${seed})`);
    await new Promise((resolve) => setTimeout(resolve, 40));
    resumed = await observer.request("thread/resume", { threadId });
    const started = observer.notificationsOf("turn/started").filter((p) => p.threadId === threadId).length;
    const completed = observer.notificationsOf("turn/completed").filter((p) => p.threadId === threadId).length;
    const idle = !resumed.runningTurn && resumed.queue.followUp.length === 0 && resumed.queue.steering.length === 0 && started === completed;
    quiet = idle ? quiet + 1 : 0;
  }
  // Every turn/started has exactly one turn/completed.
  const startedIds = observer.notificationsOf("turn/started").filter((p) => p.threadId === threadId).map((p) => p.turn.id);
  const completedIds = observer.notificationsOf("turn/completed").filter((p) => p.threadId === threadId).map((p) => p.turn.id);
  for (const id of startedIds) {
    const count = completedIds.filter((c) => c === id).length;
    if (count !== 1) problems.push(`turn ${id} completed ${count} times`);
  }
  // Where each input ended up, from the saved history.
  const turnsOf = new Map<string, { turnId: string; status: string }[]>();
  for (const turn of resumed.turns) {
    for (const item of turn.items ?? []) {
      if (item.type !== "userMessage") continue;
      const text = (item as { text: string }).text;
      turnsOf.set(text, [...(turnsOf.get(text) ?? []), { turnId: turn.id, status: turn.status }]);
    }
  }
  for (const input of accepted) {
    const places = turnsOf.get(input.text) ?? [];
    if (places.length > 1) problems.push(`${input.kind} ${input.text} is in ${places.length} turns`);
    if (input.kind === "start" && places.length !== 1) problems.push(`started ${input.text} is in no turn`);
    if (input.kind === "steer" && places.length === 1 && places[0]!.turnId !== input.expectedTurnId) {
      problems.push(`steer ${input.text} for ${input.expectedTurnId} landed in ${places[0]!.turnId}`);
    }
    if (input.kind === "steer" && places.length === 0) {
      const turn = resumed.turns.find((t) => t.id === input.expectedTurnId);
      if (turn?.status === "completed") problems.push(`steer ${input.text} was accepted but its completed turn never got it`);
    }
  }
  const dropNotices = observer.notificationsOf("turn/queue/updated").filter((p) => p.threadId === threadId);
  void dropNotices;
  // No request on a live connection went unanswered, and none was answered twice.
  for (const client of actors.filter((c) => !c.client.isConnectionClosed).concat(observer)) {
    for (const [id, count] of client.responseCounts) if (count !== 1) problems.push(`request ${String(id as RequestId)} answered ${count} times`);
  }
  for (const client of actors) client.assertNoSchemaViolations();
  observer.assertNoSchemaViolations();
  await observer.client.close();
  for (const client of actors) if (!client.client.isConnectionClosed) await client.client.close();
  const counts: Record<string, number> = { turns: startedIds.length };
  for (const input of accepted) counts[input.kind] = (counts[input.kind] ?? 0) + 1;
  counts.steersDelivered = accepted.filter((a) => a.kind === "steer" && (turnsOf.get(a.text) ?? []).length === 1).length;
  counts.interrupted = resumed.turns.filter((t) => t.status === "interrupted").length;
  return { seed, problems, counts };
}

test(`randomized: ${INTERLEAVINGS} seeded interleavings of start, steer, queue, interrupt and disconnect keep every invariant`, async (t) => {
  const failures: Outcome[] = [];
  const totals: Record<string, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < INTERLEAVINGS && failures.length === 0) {
      const seed = BASE_SEED + next++;
      try {
        const outcome = await interleaving(seed);
        if (outcome.problems.length > 0) failures.push(outcome);
        for (const [key, value] of Object.entries(outcome.counts ?? {})) totals[key] = (totals[key] ?? 0) + value;
      } catch (error) {
        failures.push({ seed, problems: [String((error as Error).stack ?? error)] });
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  const report = failures.map((f) => `INTERLEAVING_SEED=${f.seed} INTERLEAVINGS=1:\n  ${f.problems.join("\n  ")}`).join("\n");
  assert.equal(failures.length, 0, `failing seeds (replay with the env shown):\n${report}`);
  assert.ok(next >= INTERLEAVINGS);
  t.diagnostic(`accepted and observed: ${JSON.stringify(totals)}`);
  // The races must really happen: steers delivered, turns interrupted, queued inputs run.
  assert.ok((totals.steersDelivered ?? 0) > 0 && (totals.interrupted ?? 0) > 0 && (totals.queue ?? 0) > 0, JSON.stringify(totals));
});
