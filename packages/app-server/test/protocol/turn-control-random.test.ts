import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ClientRequestResult, RequestId } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { AppServerError } from "@knightcode/app-server-client";
import { type TestServer, startServer, waitUntilAsync, type TestClient } from "../support/harness.js";
import { Random, seedFromEnv } from "../support/random.js";

const TOKEN = "random-interleavings-token-0123456789";
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
  /** Its place among the interleaving's operations. */
  op: number;
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

/**
 * Waits until the thread has settled, then reads its history. Settled is
 * nothing running, nothing queued, and no start in between: a queued input
 * leaves the queue before its turn starts, so an idle-looking snapshot is not
 * enough; a thinking-level change is refused (turnInProgress) while any start
 * holds the thread, so one that goes through, with no turn started
 * meanwhile, closes that gap. The history comes from a resume asked for only
 * then: a resume reads its page before it takes its snapshots, and a turn
 * that ends in between would be missing from the page or read as unfinished.
 */
async function settled(observer: TestClient, threadId: string, seed: number) {
  const count = (method: "turn/started" | "turn/completed") => observer.notificationsOf(method).filter((p) => p.threadId === threadId).length;
  const started = await waitUntilAsync(
    `thread ${threadId} to settle (seed ${seed})`,
    async () => {
      const look = await observer.request("thread/resume", { threadId });
      const started = count("turn/started");
      if (look.runningTurn || look.queue.followUp.length > 0 || look.queue.steering.length > 0 || started !== count("turn/completed")) return undefined;
      const probe = await observer.request("thread/settings/update", { threadId, thinkingLevel: look.thread.thinkingLevel }).catch((error: unknown) => error);
      if (probe instanceof AppServerError && probe.code === "turnInProgress") return undefined;
      if (probe instanceof Error) throw probe;
      return count("turn/started") === started ? started : undefined;
    },
    20_000,
  );
  const resumed = await observer.request("thread/resume", { threadId });
  if (resumed.runningTurn || resumed.queue.followUp.length > 0 || count("turn/started") !== started) {
    throw new Error(`thread ${threadId} moved after it settled (seed ${seed})`);
  }
  return resumed;
}

/**
 * The queue as the interleaving's model expects it, from the history and the
 * observer's turn/queue/updated notifications: every queued input starts a
 * turn of its own, oldest first, unless it was removed (then never) or an
 * interrupt after it dropped it (a remove or an interrupt that a disconnect
 * left unanswered may have happened or not); none is dropped with an error,
 * as every start can reach the model; each accepted steer was listed as
 * pending; and the last update lists nothing, as the settled thread has
 * nothing.
 */
function queueProblems(state: {
  observer: TestClient;
  threadId: string;
  accepted: readonly Accepted[];
  removed: ReadonlySet<string>;
  maybeRemoved: ReadonlySet<string>;
  interrupts: readonly number[];
  textsOf: { steer: ReadonlySet<string>; queue: ReadonlySet<string> };
  turns: ClientRequestResult<"thread/resume">["turns"];
}): string[] {
  const { observer, threadId, accepted, removed, maybeRemoved, interrupts, textsOf, turns } = state;
  const problems: string[] = [];
  const inputs = turns.map((turn) => (turn.items ?? []).flatMap((item) => (item.type === "userMessage" ? [(item as { text: string }).text] : [])));
  const turnOf = (text: string) => inputs.findIndex((texts) => texts.includes(text));

  const dropped = observer.notificationsOf("error").filter((p) => p.threadId === threadId && p.kind === "queuedInputDropped");
  for (const notice of dropped) problems.push(`a queued input was dropped with an error: ${notice.message}`);

  const updates = observer.notificationsOf("turn/queue/updated").filter((p) => p.threadId === threadId);
  const queueOrder: string[] = [];
  for (const update of updates) {
    for (const entry of update.followUp) {
      if (!textsOf.queue.has(entry.text)) problems.push(`followUp lists ${JSON.stringify(entry.text)}, which was never queued`);
      if (!queueOrder.includes(entry.id)) queueOrder.push(entry.id);
    }
    const positions = update.followUp.map((entry) => queueOrder.indexOf(entry.id));
    if (positions.some((at, i) => i > 0 && at < positions[i - 1]!)) problems.push(`followUp out of order: ${JSON.stringify(update.followUp)}`);
    for (const text of update.steering) if (!textsOf.steer.has(text)) problems.push(`steering lists ${JSON.stringify(text)}, which was never a steer`);
  }
  const last = updates.at(-1);
  if (last && (last.followUp.length > 0 || last.steering.length > 0)) problems.push(`the last queue update still lists ${JSON.stringify(last)}`);

  const ranQueued: { text: string; turn: number; id: string | undefined }[] = [];
  for (const input of accepted) {
    const turn = turnOf(input.text);
    if (input.kind === "steer") {
      if (!updates.some((u) => u.steering.includes(input.text))) problems.push(`steer ${input.text} was accepted but never listed as pending`);
      continue;
    }
    if (turn !== -1 && inputs[turn]![0] !== input.text) problems.push(`${input.kind} ${input.text} joined turn ${turns[turn]!.id} instead of starting its own`);
    if (input.kind !== "queue") continue;
    if (turn !== -1 && removed.has(input.text)) problems.push(`queued ${input.text} was removed but still ran`);
    if (turn === -1 && !removed.has(input.text) && !maybeRemoved.has(input.text) && !interrupts.some((op) => op > input.op)) {
      problems.push(`queued ${input.text} never ran, and neither a remove nor a later interrupt dropped it`);
    }
    if (turn !== -1) ranQueued.push({ text: input.text, turn, id: updates.flatMap((u) => u.followUp).find((entry) => entry.text === input.text)?.id });
  }
  const inQueueOrder = ranQueued.filter((q) => q.id !== undefined).sort((a, b) => queueOrder.indexOf(a.id!) - queueOrder.indexOf(b.id!));
  if (inQueueOrder.some((q, i) => i > 0 && q.turn < inQueueOrder[i - 1]!.turn)) {
    problems.push(`queued inputs did not run oldest first: ${inQueueOrder.map((q) => `${q.text}@${q.turn}`).join(", ")}`);
  }
  return problems;
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
    const started = observer
      .notificationsOf("turn/started")
      .filter((p) => p.threadId === threadId)
      .map((p) => p.turn.id);
    const done = new Set(
      observer
        .notificationsOf("turn/completed")
        .filter((p) => p.threadId === threadId)
        .map((p) => p.turn.id),
    );
    return started.filter((id) => !done.has(id)).at(-1);
  };
  const accepted: Accepted[] = [];
  const removed = new Set<string>();
  /** Inputs whose remove went unanswered on a closed connection: removed or not. */
  const maybeRemoved = new Set<string>();
  const queueIds = new Map<string, string>();
  const textsOf = { steer: new Set<string>(), queue: new Set<string>() };
  /** Operations at which an interrupt may have dropped the queue: answered, or unanswered on a closed connection. */
  const interrupts: number[] = [];
  const pending: Promise<unknown>[] = [];
  let n = 0;
  const ops = 4 + random.int(7);
  for (let i = 0; i < ops; i++) {
    const text = `input-${seed}-${n++}`;
    const client = actor;
    const send = <T>(promise: Promise<T>, onOk: (value: T) => void, onUnanswered: () => void = () => undefined) => {
      pending.push(
        promise.then(onOk, (error: unknown) => {
          if (error instanceof Error && "kind" in error) return onUnanswered();
          const code = (error as { code?: string }).code;
          const allowed = ["turnInProgress", "turnMismatch", "invalidParams"];
          if (!allowed.includes(code ?? "")) problems.push(`${text}: unexpected error ${String(error)}`);
        }),
      );
    };
    switch (random.pick(["start", "start", "steer", "steer", "queue", "remove", "interrupt", "disconnect"] as const)) {
      case "start":
        send(client.request("turn/start", { threadId, text }), (r) => r.status === "started" && accepted.push({ kind: "start", text, op: i }));
        break;
      case "steer": {
        const expectedTurnId = random.chance(0.8) ? (running() ?? "none") : "stale-turn";
        textsOf.steer.add(text);
        send(
          client.request("turn/steer", { threadId, text, expectedTurnId }),
          (r) => r.status === "steered" && accepted.push({ kind: "steer", text, op: i, expectedTurnId }),
        );
        break;
      }
      case "queue":
        textsOf.queue.add(text);
        send(client.request("turn/queue/add", { threadId, text }), (r) => {
          queueIds.set(r.queueId, text);
          accepted.push({ kind: "queue", text, op: i });
        });
        break;
      case "remove": {
        const ids = [...queueIds.keys()];
        if (ids.length === 0) break;
        const queueId = random.pick(ids);
        const queued = queueIds.get(queueId)!;
        send(
          client.request("turn/queue/remove", { threadId, queueId }),
          (r) => r.removed && removed.add(queued),
          () => maybeRemoved.add(queued),
        );
        break;
      }
      case "interrupt": {
        const turnId = random.chance(0.5) ? running() : undefined;
        send(
          client.request("turn/interrupt", { threadId, ...(turnId ? { turnId } : {}) }),
          () => interrupts.push(i),
          () => interrupts.push(i),
        );
        break;
      }
      case "disconnect":
        await client.client.close();
        actor = await connect();
        actors.push(actor);
        await actor.request("thread/resume", { threadId });
        break;
    }
    // Random spacing between operations: it varies the interleavings, it waits for nothing.
    await new Promise((resolve) => setTimeout(resolve, random.int(12)));
  }
  await Promise.all(pending);
  const resumed = await settled(observer, threadId, seed);
  // Every turn/started has exactly one turn/completed.
  const startedIds = observer
    .notificationsOf("turn/started")
    .filter((p) => p.threadId === threadId)
    .map((p) => p.turn.id);
  const completedIds = observer
    .notificationsOf("turn/completed")
    .filter((p) => p.threadId === threadId)
    .map((p) => p.turn.id);
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
  problems.push(...queueProblems({ observer, threadId, accepted, removed, maybeRemoved, interrupts, textsOf, turns: resumed.turns }));
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
