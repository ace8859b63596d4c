import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer, type RecordedRequest } from "@knightcode/testkit";
import { type TestServer, startServer, waitUntil, type RawResponse } from "../support/harness.js";
import { Random } from "../support/random.js";

/**
 * The one owner of a running turn, seen from outside: a settings change
 * never lands inside a turn, shutdown keeps what a turn streamed, and
 * extension messages reach the model as the extension API promises.
 */

let model: ScriptedModelServer;

before(async () => {
  model = await ScriptedModelServer.start();
});
after(async () => {
  await model.close();
});

describe("spec: Threads and turns (settings serialize with starts)", () => {
  let server: TestServer;
  let cwd: string;
  before(async () => {
    server = await startServer({ model, modelsJson: model.modelsJson({ models: [{ id: "alpha" }, { id: "beta" }] }) });
    cwd = server.project({ "a.txt": "alpha\n" });
  });
  after(async () => {
    await server.close();
  });

  test("thread/settings/update racing turn/start answers turnInProgress or lands before the turn, never inside it", async () => {
    // Every turn makes two model requests (a tool call, then the answer): a model switched mid-turn would show between them.
    model.setFallback((request) => {
      const last = request.body.messages.at(-1);
      return last?.role === "tool" ? { text: "done" } : { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] };
    });
    try {
      const random = new Random(20261201);
      const outcomes = { before: 0, refused: 0 };
      for (let round = 0; round < 24; round++) {
        // A new thread each round: its first turn also builds its agent, and the change must land before that too.
        const current = random.pick(["alpha", "beta"]);
        const target = current === "alpha" ? "beta" : "alpha";
        const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess", model: { provider: "scripted", id: current } });
        const firstRequest = model.requests.length;
        const mark = server.main.notifications.length;
        const settingsId = `settings-${round}`;
        const startId = `start-${round}`;
        const settings = { id: settingsId, method: "thread/settings/update", params: { threadId: thread.id, model: { provider: "scripted", id: target } } };
        const start = { id: startId, method: "turn/start", params: { threadId: thread.id, text: `round ${round}` } };
        // Both in one write, in a random order: the server sees them in the same moment.
        const [first, second] = random.int(2) === 0 ? [settings, start] : [start, settings];
        server.main.sendRaw(`${JSON.stringify(first)}\n${JSON.stringify(second)}`);
        const settingsAnswer = await answer(server, settingsId);
        const startAnswer = await answer(server, startId);
        assert.equal(startAnswer.error, undefined, JSON.stringify(startAnswer.error));
        await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
        const models = model.requests.slice(firstRequest).map((request: RecordedRequest) => request.body.model as string);
        assert.equal(models.length, 2, "a tool call, then the answer");
        assert.equal(new Set(models).size, 1, `round ${round}: the model changed inside the turn: ${models.join(", ")}`);
        if (settingsAnswer.error) {
          assert.equal(settingsAnswer.error.code, "turnInProgress", settingsAnswer.error.message);
          assert.equal(models[0], current, "a refused change leaves the turn on the model it had");
          outcomes.refused++;
        } else {
          assert.equal(models[0], target, "an accepted change lands before the turn");
          outcomes.before++;
        }
      }
      assert.ok(outcomes.before > 0, "some changes landed before their turn");
    } finally {
      model.setFallback({ status: 500, body: { error: { message: "no scripted response queued" } } });
    }
  });
});

describe("spec: thread/resume (snapshots taken when the answer is built)", () => {
  let server: TestServer;
  let cwd: string;
  before(async () => {
    server = await startServer({ model });
    cwd = server.project({ "a.txt": "alpha\n" });
  });
  after(async () => {
    await server.close();
  });

  test("while turns start and end, every resume holds each turn begun before its answer: in its history, or as runningTurn", async () => {
    // Each turn writes often: three tool calls, then its answer.
    model.setFallback((request) => {
      const calls = request.body.messages.filter((m: { role: string }) => m.role === "tool").length;
      const sinceUser = request.body.messages.length - 1 - request.body.messages.map((m: { role: string }) => m.role).lastIndexOf("user");
      void calls;
      return sinceUser >= 6 ? { text: "done" } : { toolCalls: [{ name: "ls", arguments: {} }] };
    });
    try {
      const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
      const mark = server.main.notifications.length;
      let queued = 0;
      const burst = async () => {
        for (let i = 0; i < 12; i++) await server.main.request("turn/queue/add", { threadId: thread.id, text: `burst ${queued++}` });
      };
      await burst();
      const problems: string[] = [];
      let resumes = 0;
      const allDone = () => server.main.notificationsOf("turn/completed").filter((p) => p.threadId === thread.id).length >= queued;
      // A fast machine can finish a burst within a few resumes: another burst gives the resumes more turns to race (three at most).
      while (!allDone() || (resumes <= 5 && queued < 36)) {
        if (allDone()) await burst();
        const answer = await server.main.rawRequest("thread/resume", { threadId: thread.id }, `resume-${++resumes}`);
        const result = answer.result as { turns: { id: string; status: string; completedAt?: number }[]; runningTurn?: { id: string } };
        const before = server.main.notificationsBefore.get(`resume-${resumes}`)!;
        const started = server.main.notifications
          .slice(mark, before)
          .filter((n) => n.method === "turn/started" && (n.params as { threadId: string }).threadId === thread.id)
          .map((n) => (n.params as { turn: { id: string } }).turn.id);
        const inPage = new Set(result.turns.map((t) => t.id));
        for (const id of started) {
          if (!inPage.has(id) && result.runningTurn?.id !== id)
            problems.push(`resume ${resumes}: turn ${id} began before the answer but is in neither its history nor runningTurn`);
        }
        for (const turn of result.turns) {
          if (turn.status !== "completed")
            problems.push(
              `resume ${resumes}: turn ${turn.id} reads ${turn.status} ${JSON.stringify(result.runningTurn?.id)} ${JSON.stringify(turn).slice(0, 600)}`,
            );
          if (turn.id === result.runningTurn?.id) problems.push(`resume ${resumes}: the running turn ${turn.id} is also in the history`);
        }
      }
      assert.deepEqual(problems, []);
      assert.ok(resumes > 5, `only ${resumes} resumes ran while the turns did`);
    } finally {
      model.setFallback({ status: 500, body: { error: { message: "no scripted response queued" } } });
    }
  });
});

function answer(server: TestServer, id: string): Promise<RawResponse> {
  return waitUntil(`an answer to ${id}`, () => server.main.rawResponses.get(id));
}

describe("spec: Ownership, unloading, and shutdown (a turn streaming at shutdown)", () => {
  test("stdin EOF while a reply streams: the next server reads the turn interrupted, with the text already streamed", async () => {
    const home = mkdtempSync(join(tmpdir(), "kc-test-home-"));
    const first = await startServer({ model, home });
    const cwd = first.project({});
    const { thread } = await first.main.request("thread/start", { cwd });
    // The reply streams two pieces, then waits forever: the user has seen them when stdin closes.
    model.enqueue({ text: ["The answer ", "begins here", " and never ends"], pauseAfter: 3 });
    await first.main.request("turn/start", { threadId: thread.id, text: "explain" });
    await waitUntil("both streamed pieces", () => {
      const deltas = first.main.notificationsOf("item/agentMessage/delta").map((p) => p.delta);
      return deltas.join("") === "The answer begins here" ? deltas : undefined;
    });
    const exit = await first.close();
    assert.equal(exit.code, 0);

    const second = await startServer({ model, home });
    try {
      const read = await second.main.request("thread/read", { threadId: thread.id });
      const turn = read.turns.at(-1)!;
      assert.equal(turn.status, "interrupted");
      const answerItem = turn.items?.find((item) => item.type === "agentMessage");
      assert.ok(answerItem && "text" in answerItem, JSON.stringify(turn.items));
      assert.equal(answerItem.text, "The answer begins here");
    } finally {
      await second.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

/** An extension that, on its commands, sends messages the way extensions do. */
const MESSENGER = `
export default function (kc: any) {
  kc.registerCommand("ping", { handler: async (args: string) => {
    kc.sendMessage({ customType: "ping", content: "ping says " + args }, { triggerTurn: true });
  } });
  kc.registerCommand("note", { handler: async (args: string) => {
    kc.sendMessage({ customType: "note", content: "note: " + args });
  } });
  kc.on("tool_call", async (event: any) => {
    if (event.toolName === "read") kc.sendMessage({ customType: "steer", content: "steered by an extension" }, { deliverAs: "steer" });
  });
}
`;

describe("spec: extensions (sendMessage)", () => {
  let server: TestServer;
  let cwd: string;
  let extensionDir: string;
  before(async () => {
    extensionDir = mkdtempSync(join(tmpdir(), "kc-messenger-"));
    writeFileSync(join(extensionDir, "messenger.ts"), MESSENGER);
    server = await startServer({ model, args: ["-e", join(extensionDir, "messenger.ts")] });
    cwd = server.project({ "a.txt": "alpha\n" });
  });
  after(async () => {
    await server.close();
    rmSync(extensionDir, { recursive: true, force: true });
  });

  test("on an idle thread, triggerTurn starts a turn holding the message, which the model sees", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
    model.enqueue({ text: "pong" });
    const before = model.requests.length;
    const mark = server.main.notifications.length;
    const started = await server.main.request("turn/start", { threadId: thread.id, text: "/ping hello" });
    assert.equal(started.status, "handled");
    const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
    assert.equal(done.turn.status, "completed");
    const item = server.main
      .notificationsOf("item/completed")
      .map((p) => p.item)
      .find((i) => i.type === "extensionMessage");
    assert.ok(item && "text" in item && item.text === "ping says hello", JSON.stringify(item));
    assert.match(JSON.stringify(model.requests[before]!.body.messages), /ping says hello/);
  });

  test("without triggerTurn the message waits for the next turn and goes before its input", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
    assert.equal((await server.main.request("turn/start", { threadId: thread.id, text: "/note remember the milk" })).status, "handled");
    model.enqueue({ text: "noted" });
    const before = model.requests.length;
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "what did I say?" });
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
    const messages = JSON.stringify(model.requests[before]!.body.messages);
    assert.ok(messages.indexOf("note: remember the milk") !== -1 && messages.indexOf("note: remember the milk") < messages.indexOf("what did I say?"));
  });

  test("while a turn runs, deliverAs steer reaches that turn's next model request", async () => {
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
    model.enqueue({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "read it" });
    const before = model.requests.length;
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "read a.txt" });
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
    assert.match(JSON.stringify(model.requests[before + 1]!.body.messages), /steered by an extension/);
  });
});
