import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AppServerError } from "@knightcode/app-server-client";
import type { ServerNotificationParams } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, waitUntil, type TestClient } from "../support/harness.js";

/**
 * Attacks on the server's output: another client on `--listen` that floods
 * what every subscriber is sent, and a model whose reply has no end. The
 * stdio connection is the one that matters most: when it is cut off, the
 * server shuts down.
 */

const TOKEN = "flood-test-token-0123456789abcdef0123456789";
const MiB = 1024 * 1024;
let model: ScriptedModelServer;

before(async () => {
  model = await ScriptedModelServer.start();
});
after(async () => {
  await model.close();
});

interface Flooded {
  server: TestServer;
  /** The other client, on the WebSocket. */
  ws: TestClient;
  cwd: string;
}

/** A server of its own for each attack, with a second client on `--listen`: one attack that wins cannot hide the next. */
async function withServer(run: (setup: Flooded) => Promise<void>, wsOptOut?: string[]): Promise<void> {
  const server = await startServer({ model, args: ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN] });
  try {
    const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
    const ws = await server.connectWebSocket(url, TOKEN, "other client");
    await ws.initialize(wsOptOut);
    try {
      await run({ server, ws, cwd: server.project({ "a.txt": "alpha\n" }) });
    } catch (error) {
      // What the server said about it (a connection it gave up on, a shutdown) is the first thing to read.
      console.log(
        `# server stderr, last lines:\n${server.stderr
          .split("\n")
          .slice(-12)
          .map((line) => `#   ${line}`)
          .join("\n")}`,
      );
      throw error;
    }
    assert.equal(model.pending, 0, "every scripted reply was asked for");
    assert.equal(server.transport.child.exitCode, null, `the server is still running; stderr:\n${server.stderr}`);
    await server.close();
  } finally {
    server.cleanup();
  }
}

function held() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { gate, release };
}

/** The stdio client stops reading the server's stdout (its pipe fills), or reads again. */
function stdioReading(server: TestServer, reading: boolean): void {
  const stdout = server.transport.child.stdout!;
  if (reading) stdout.resume();
  else stdout.pause();
}

/** A turn the stdio client started (so it subscribes), held open by the model after its first words. */
async function heldTurn(server: TestServer, cwd: string) {
  const { thread } = await server.main.request("thread/start", { cwd });
  const hold = held();
  model.enqueue({ text: ["working on it"], pauseAfter: 2, gate: hold.gate });
  const mark = server.main.notifications.length;
  await server.main.request("turn/start", { threadId: thread.id, text: "a long task" });
  const started = await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
  await server.main.waitForNotification("item/agentMessage/delta", (p) => p.threadId === thread.id, { since: mark });
  return { threadId: thread.id, turnId: started.turn.id, mark, release: hold.release };
}

function queueUpdates(client: TestClient, threadId: string, since: number): ServerNotificationParams<"turn/queue/updated">[] {
  return client.notifications
    .slice(since)
    .filter((n) => n.method === "turn/queue/updated" && (n.params as { threadId: string }).threadId === threadId)
    .map((n) => n.params as ServerNotificationParams<"turn/queue/updated">);
}

function completions(client: TestClient, turnId: string, since: number) {
  const of = (method: string) =>
    client.notifications.slice(since).filter((n) => n.method === method && (n.params as { turn: { id: string } }).turn.id === turnId);
  return { local: of("turn/completed"), everyone: of("thread/turn/completed") };
}

/** Ends a held turn from the stdio client: the interrupt drops the queue. */
async function interruptAndSettle(server: TestServer, turn: { threadId: string; turnId: string; mark: number; release(): void }) {
  await server.main.request("turn/interrupt", { threadId: turn.threadId });
  turn.release();
  const done = await server.main.waitForNotification("turn/completed", (p) => p.turn.id === turn.turnId, { since: turn.mark });
  assert.equal(done.turn.status, "interrupted");
  await waitUntil("the dropped queue to show empty", () => queueUpdates(server.main, turn.threadId, turn.mark).at(-1)?.followUp.length === 0);
}

/** A turn after the attack still works end to end on the stdio connection. */
async function normalTurnWorks(server: TestServer, threadId: string): Promise<void> {
  model.enqueue({ text: ["a normal ", "answer"] });
  const mark = server.main.notifications.length;
  await server.main.request("turn/start", { threadId, text: "and now something short" });
  const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark });
  assert.equal(done.turn.status, "completed");
  const answer = server.main.notificationsOf("item/completed").find((p) => p.turnId === done.turn.id && p.item.type === "agentMessage");
  assert.equal((answer?.item as { text?: string } | undefined)?.text, "a normal answer");
}

describe("spec: turn/queue/add (the queue's limits)", () => {
  test("another connection's 1,200 queued inputs of 512 characters: past 100 each is refused, the stdio connection is not cut off and the server stays up", async () => {
    await withServer(
      async ({ server, ws, cwd }) => {
        const turn = await heldTurn(server, cwd);
        const texts = Array.from({ length: 1200 }, (_, i) => String(i).padStart(4, "0") + "x".repeat(508));
        const answers = await Promise.allSettled(texts.map((text) => ws.request("turn/queue/add", { threadId: turn.threadId, text })));

        const accepted = answers.filter((a) => a.status === "fulfilled");
        assert.equal(accepted.length, 100, "a thread queues at most 100 inputs");
        for (const answer of answers.slice(100)) {
          assert.equal(answer.status, "rejected");
          const error = (answer as PromiseRejectedResult).reason;
          assert.ok(error instanceof AppServerError, String(error));
          assert.equal(error.code, "invalidParams");
          assert.equal(error.data?.reason, "queueFull");
          assert.equal(error.data?.maxInputs, 100);
          assert.match(error.message, /100 inputs/);
        }

        const diagnostics = await server.main.request("server/diagnostics", {});
        assert.equal(diagnostics.loadedThreads, 1, "the stdio connection still answers");
        const full = await server.main.waitForNotification("turn/queue/updated", (p) => p.threadId === turn.threadId && p.followUp.length === 100, {
          since: turn.mark,
        });
        assert.deepEqual(
          full.followUp.map((f) => f.text),
          texts.slice(0, 100),
          "the first 100, oldest first",
        );
        const bytes = queueUpdates(server.main, turn.threadId, turn.mark).reduce((sum, p) => sum + JSON.stringify(p).length, 0);
        // Re-sending the whole queue on every add would be 1,200 updates and about 390 MB; coalesced and capped it is a few.
        assert.ok(bytes < 8 * MiB, `the stdio client got ${bytes} bytes of queue updates`);

        await interruptAndSettle(server, turn);
        assert.equal(completions(server.main, turn.turnId, turn.mark).local.length, 1);
        await normalTurnWorks(server, turn.threadId);
      },
      ["turn/queue/updated"],
    );
  });

  test("queued inputs and steers share the cap of 100 inputs and 4 MiB of text; past it both are refused", async () => {
    await withServer(
      async ({ server, ws, cwd }) => {
        const turn = await heldTurn(server, cwd);
        const { threadId, turnId } = turn;
        const queueFull = (error: unknown) => error instanceof AppServerError && error.code === "invalidParams" && error.data?.reason === "queueFull";
        const big = await Promise.all([0, 1, 2, 3].map((i) => ws.request("turn/queue/add", { threadId, text: String(i).repeat(1_000_000) })));
        await assert.rejects(ws.request("turn/queue/add", { threadId, text: "z".repeat(200_000) }), queueFull, "4 MB queued and 200 kB more pass 4 MiB");
        await assert.rejects(ws.request("turn/steer", { threadId, expectedTurnId: turnId, text: "s".repeat(200_000) }), queueFull);
        for (const { queueId } of big) await ws.request("turn/queue/remove", { threadId, queueId });

        for (let i = 0; i < 60; i++) await ws.request("turn/queue/add", { threadId, text: `queued ${i}` });
        for (let i = 0; i < 40; i++) assert.equal((await ws.request("turn/steer", { threadId, expectedTurnId: turnId, text: `steer ${i}` })).status, "steered");
        await assert.rejects(ws.request("turn/steer", { threadId, expectedTurnId: turnId, text: "one steer too many" }), queueFull);
        await assert.rejects(ws.request("turn/queue/add", { threadId, text: "one input too many" }), queueFull);
        await server.main.waitForNotification("turn/queue/updated", (p) => p.threadId === threadId && p.steering.length === 40 && p.followUp.length === 60, {
          since: turn.mark,
        });
        await interruptAndSettle(server, turn);
      },
      ["turn/queue/updated"],
    );
  });

  test("queue updates are coalesced, and one never arrives after the turn/started of the input it took off the queue", async () => {
    await withServer(async ({ server, ws, cwd }) => {
      const turn = await heldTurn(server, cwd);
      model.enqueue({ text: "the reply to one" }, { text: "the reply to three" });
      await ws.request("thread/resume", { threadId: turn.threadId });
      const wsMark = ws.notifications.length;
      // Three adds in one write: the server reads them in one go, as it would a client's burst.
      const burst = ["one", "two", "three"].map((text) => ({ id: `add-${text}`, method: "turn/queue/add", params: { threadId: turn.threadId, text } }));
      server.main.sendRaw(burst.map((message) => JSON.stringify(message)).join("\n"));
      const added = await waitUntil("the three adds answered", () => {
        const answers = burst.map((message) => server.main.rawResponses.get(message.id)?.result as { queueId: string } | undefined);
        return answers.every((answer) => answer !== undefined) && (answers as { queueId: string }[]);
      });
      await server.main.waitForNotification("turn/queue/updated", (p) => p.followUp.length === 3, { since: turn.mark });
      const removed = await ws.request("turn/queue/remove", { threadId: turn.threadId, queueId: added[1]!.queueId });
      assert.deepEqual(removed, { removed: true });
      await server.main.waitForNotification("turn/queue/updated", (p) => p.followUp.length === 2, { since: turn.mark });
      // The burst is one update, not three that each list the whole queue; the remove is another.
      const updates = queueUpdates(server.main, turn.threadId, turn.mark);
      assert.deepEqual(
        updates.map((u) => u.followUp.map((f) => f.text)),
        [
          ["one", "two", "three"],
          ["one", "three"],
        ],
      );

      turn.release();
      await server.main.waitForNotification("turn/completed", (p) => p.turn.id === turn.turnId, { since: turn.mark });
      for (const client of [server.main, ws]) {
        const since = client === ws ? wsMark : turn.mark;
        const next = await client.waitForNotification("turn/started", (p) => p.threadId === turn.threadId && p.turn.id !== turn.turnId, { since });
        const log = client.notifications.slice(since);
        const startedAt = log.findIndex((n) => n.method === "turn/started" && (n.params as { turn: { id: string } }).turn.id === next.turn.id);
        const shifted = log.findIndex(
          (n) => n.method === "turn/queue/updated" && !(n.params as { followUp: { id: string }[] }).followUp.some((f) => f.id === added[0]!.queueId),
        );
        assert.ok(
          shifted !== -1 && shifted < startedAt,
          `${client.label}: the update without "one" (at ${shifted}) comes before its turn/started (at ${startedAt})`,
        );
      }
      await waitUntil("the queued inputs' turns", () => server.main.notificationsOf("turn/completed").filter((p) => p.threadId === turn.threadId).length === 3);
    });
  });

  test("a stdio client that stops reading is not cut off by another client churning a full queue", async () => {
    await withServer(
      async ({ server, ws, cwd }) => {
        const turn = await heldTurn(server, cwd);
        const text = (i: number) => String(i).padStart(5, "0") + "y".repeat(39_995);
        stdioReading(server, false);
        const ids: string[] = [];
        for (let i = 0; i < 90; i++) ids.push((await ws.request("turn/queue/add", { threadId: turn.threadId, text: text(i) })).queueId);
        // Each change is a snapshot of about 3.6 MB for the stdio client: far past 64 MiB if each went out whole.
        for (let i = 90; i < 120; i++) {
          await ws.request("turn/queue/remove", { threadId: turn.threadId, queueId: ids.shift()! });
          ids.push((await ws.request("turn/queue/add", { threadId: turn.threadId, text: text(i) })).queueId);
        }
        assert.equal(server.transport.child.exitCode, null, "the server is still up");
        stdioReading(server, true);
        const last = await server.main.waitForNotification(
          "turn/queue/updated",
          (p) => p.threadId === turn.threadId && p.followUp.length === 90 && p.followUp.at(-1)!.id === ids.at(-1),
          { since: turn.mark, timeoutMs: 30_000 },
        );
        assert.deepEqual(
          last.followUp.map((f) => f.id),
          ids,
          "the latest queue, whole",
        );
        assert.equal((await server.main.request("server/diagnostics", {})).loadedThreads, 1);
        await interruptAndSettle(server, turn);
        await normalTurnWorks(server, turn.threadId);
      },
      ["turn/queue/updated"],
    );
  });
});

describe("spec: Limits (64 MiB of pending unread output)", () => {
  const chunk = "z".repeat(64 * 1024);
  /** 100 MiB of answer, streamed in 64 KiB pieces (one string, shared). */
  const hugeReply = () => ({ text: new Array<string>(1600).fill(chunk) });

  async function hugeTurn(server: TestServer, threadId: string, whileStreaming?: () => Promise<void>) {
    const hold = held();
    model.enqueue({ ...hugeReply(), pauseAfter: 2, gate: hold.gate });
    const mark = server.main.notifications.length;
    const requestIndex = model.requests.length;
    await server.main.request("turn/start", { threadId, text: "say everything, twice" });
    const started = await server.main.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
    await server.main.waitForNotification("item/agentMessage/delta", (p) => p.threadId === threadId, { since: mark });
    hold.release();
    await whileStreaming?.();
    const done = await server.main.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id, { since: mark, timeoutMs: 60_000 });
    return { done, mark, request: model.requests[requestIndex]!, turnId: started.turn.id };
  }

  function assertCutShort(done: ServerNotificationParams<"turn/completed">) {
    assert.equal(done.turn.status, "failed");
    assert.equal(done.turn.error?.kind, "other");
    assert.match(done.turn.error!.message, /reply was too long.*16 MiB/);
  }

  test("a 100 MiB model reply ends its turn failed, saying it was too long; the stdio connection and the server stay up", async (t) => {
    await withServer(async ({ server, cwd }) => {
      const { thread } = await server.main.request("thread/start", { cwd });
      const started = Date.now();
      const { done, mark, request, turnId } = await hugeTurn(server, thread.id);
      assertCutShort(done);
      await waitUntil("the model request to be cut off, not read to its end", () => request.abortedAt !== undefined);
      await waitUntil("thread/turn/completed", () => completions(server.main, turnId, mark).everyone.length === 1);
      assert.equal(completions(server.main, turnId, mark).local.length, 1, "exactly one turn/completed");
      const removed = server.main.notificationsOf("item/removed").filter((p) => p.turnId === turnId);
      assert.equal(removed.length, 1, "the cut reply's item is withdrawn");
      assert.equal((await server.main.request("server/diagnostics", {})).loadedThreads, 1);
      const history = await server.main.request("thread/read", { threadId: thread.id });
      assert.ok(JSON.stringify(history).length < MiB, "the cut reply is not kept in the transcript");
      await normalTurnWorks(server, thread.id);
      t.diagnostic(`a 100 MiB reply cut short, and a normal turn after it, in ${Date.now() - started} ms`);
    });
  });

  test("a stdio client that stops reading while a 100 MiB reply streams is not cut off: it misses deltas, not the turn", async () => {
    await withServer(async ({ server, cwd }) => {
      const { thread } = await server.main.request("thread/start", { cwd });
      let request!: { abortedAt?: number; finishedAt?: number };
      const { done, mark, turnId } = await hugeTurn(server, thread.id, async () => {
        stdioReading(server, false);
        request = model.requests.at(-1)!;
        await waitUntil("the model request to end", () => request.abortedAt !== undefined || request.finishedAt !== undefined, 60_000);
        assert.equal(server.transport.child.exitCode, null, "the server is still up");
        stdioReading(server, true);
      });
      assertCutShort(done);
      assert.equal(completions(server.main, turnId, mark).local.length, 1, "exactly one turn/completed");
      assert.equal((await server.main.request("server/diagnostics", {})).loadedThreads, 1);
      await normalTurnWorks(server, thread.id);
    });
  });

  test("a client that reads slowly gets a prefix of the deltas, then the whole reply in item/completed", async () => {
    await withServer(async ({ server, ws, cwd }) => {
      const { thread } = await server.main.request("thread/start", { cwd });
      await ws.request("thread/resume", { threadId: thread.id });
      // 12 MiB: past what a slow reader is sent as deltas, short of the reply limit.
      const pieces = Array.from({ length: 192 }, (_, i) => String(i).padStart(4, "0") + "w".repeat(64 * 1024 - 4));
      const hold = held();
      model.enqueue({ text: pieces, pauseAfter: 2, gate: hold.gate });
      const mark = server.main.notifications.length;
      const wsMark = ws.notifications.length;
      await server.main.request("turn/start", { threadId: thread.id, text: "a long but fair answer" });
      await server.main.waitForNotification("item/agentMessage/delta", (p) => p.threadId === thread.id, { since: mark });
      stdioReading(server, false);
      const request = model.requests.at(-1)!;
      hold.release();
      await waitUntil("the model to finish", () => request.finishedAt !== undefined, 60_000);
      stdioReading(server, true);
      const whole = pieces.join("");
      for (const [client, since] of [
        [server.main, mark],
        [ws, wsMark],
      ] as const) {
        const done = await client.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since, timeoutMs: 60_000 });
        assert.equal(done.turn.status, "completed");
        const deltas = client
          .notificationsOf("item/agentMessage/delta")
          .filter((p) => p.turnId === done.turn.id)
          .map((p) => p.delta)
          .join("");
        assert.ok(whole.startsWith(deltas), `${client.label}: the deltas it got are the reply's beginning, without a gap`);
        const completed = client.notificationsOf("item/completed").find((p) => p.turnId === done.turn.id && p.item.type === "agentMessage")!;
        const item = (await client.client.resolveItem(completed.item as never)) as { text: string };
        assert.equal(item.text.length, whole.length);
        assert.ok(item.text === whole, `${client.label}: item/completed carries the whole reply`);
        if (client === server.main) assert.ok(deltas.length < whole.length, "the stalled reader was not sent every delta");
      }
    });
  });
});
