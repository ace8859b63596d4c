import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { waitUntil } from "./support/harness.js";
import { startInProcess, type InProcessServer } from "./support/in-process.js";
import { manualClock } from "./support/manual-clock.js";

let model: ScriptedModelServer;
let app: InProcessServer;

before(async () => {
  model = await ScriptedModelServer.start();
  app = await startInProcess(model);
});
after(async () => {
  await app.close();
  await model.close();
});

describe("spec: Threads and turns (settings changes serialize with starts)", () => {
  test("a model change that waits on the registry holds the thread: a start waits for it and runs on the new model", async () => {
    const { client, server } = app;
    const cwd = app.project();
    const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess", model: { provider: "scripted", id: "scripted-model" } });
    const loaded = server.loadedThreads!.get(thread.id)!;
    const registry = server.loadedThreads!.registry;
    // The registry can be slow (an OAuth refresh, a large models.json): this change waits on it until the test says.
    const find = registry.find.bind(registry);
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    registry.find = async (ref) => {
      asked = true;
      await slow;
      return find(ref);
    };
    try {
      const change = client.request("thread/settings/update", { threadId: thread.id, model: { provider: "scripted", id: "scripted-reasoner" } });
      await waitUntil("the change to consult the registry", () => asked || undefined);
      registry.find = find;
      assert.equal(loaded.isRunning, true, "the change holds the thread from its first step, not after its awaits");
      model.enqueue({ toolCalls: [{ name: "ls", arguments: {} }] }, { text: "done" });
      const before = model.requests.length;
      const mark = client.notifications.length;
      const start = client.request("turn/start", { threadId: thread.id, text: "go" });
      release();
      assert.equal((await change).thread.model?.id, "scripted-reasoner");
      assert.equal((await start).status, "started");
      await client.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
      const models = model.requests.slice(before).map((request) => request.body.model as string);
      assert.deepEqual(models, ["scripted-reasoner", "scripted-reasoner"], "the whole turn ran on the model the change chose");
    } finally {
      registry.find = find;
      release();
    }
  });
});

describe("faults: a run that throws after its turn started", () => {
  test("the owner reports the turn ended, once, failed with what was thrown; the run's own late end is not a second report", async () => {
    const { client, server } = app;
    const { thread } = await client.request("thread/start", { cwd: app.project(), approvalMode: "fullAccess" });
    const session = server.loadedThreads!.get(thread.id)!.runtime.session;
    const runTurn = session.runTurn.bind(session);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    model.enqueue({ text: ["partial ", "reply"], pauseAfter: 2, gate });
    // The engine throws once the turn is under way, while its real run goes on to end later by itself.
    let lateRun: Promise<unknown> | undefined;
    session.runTurn = async (input, turn) => {
      lateRun = runTurn(input, turn);
      await waitUntil("the turn to start", () => turn?.id);
      throw new Error("the engine broke");
    };
    try {
      const mark = client.notifications.length;
      await client.request("turn/start", { threadId: thread.id, text: "go" });
      const done = await client.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
      assert.equal(done.turn.status, "failed");
      assert.deepEqual(done.turn.error, { message: "the engine broke", kind: "other" });
      release();
      await lateRun;
      const ends = client.notifications.slice(mark).filter((n) => n.method === "turn/completed" || n.method === "thread/turn/completed");
      assert.deepEqual(
        ends.map((n) => n.method),
        ["turn/completed", "thread/turn/completed"],
      );
    } finally {
      session.runTurn = runTurn;
      release();
    }
  });
});

describe("faults: shutdown's deadline passes before a turn can settle", () => {
  test("a tool that ignores the stop for longer than shutdown waits: the turn is still reported ended, once, before the server closes", async () => {
    const own = await startInProcess(model);
    const { client, server } = own;
    try {
      writeFileSync(join(own.home, "agent", "settings.json"), JSON.stringify({ interruptGraceMs: 3_600_000 }));
      const cwd = own.project();
      mkdirSync(join(cwd, ".knightcode", "extensions"), { recursive: true });
      writeFileSync(
        join(cwd, ".knightcode", "extensions", "stuck.ts"),
        `export default function (kc: any) {
          kc.registerTool({ name: "stuck", description: "never returns", parameters: { type: "object", properties: {} },
            execute() { return new Promise(() => undefined); } });
        }`,
      );
      await client.request("project/trust/set", { cwd, trusted: true });
      const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess" });
      model.enqueue({ toolCalls: [{ id: "call_stuck_shutdown", name: "stuck", arguments: {} }] });
      const mark = client.notifications.length;
      await client.request("turn/start", { threadId: thread.id, text: "get stuck" });
      await client.waitForNotification("item/started", (p) => p.item.type === "toolCall", { since: mark });
      const time = manualClock();
      const shutdown = server.shutdown("test", { clock: time.clock });
      await waitUntil("the deadlines to be set", () => time.asked().length === 2 || undefined);
      assert.equal(
        client.notifications.slice(mark).some((n) => n.method === "turn/completed"),
        false,
        "the stuck tool holds the turn until the deadline",
      );
      time.fire(9_000);
      const done = await client.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
      assert.equal(done.turn.status, "interrupted");
      time.fire(10_000);
      await shutdown;
      const ends = client.notifications.slice(mark).filter((n) => n.method === "turn/completed" || n.method === "thread/turn/completed");
      assert.deepEqual(
        ends.map((n) => n.method),
        ["turn/completed", "thread/turn/completed"],
      );
      client.assertNoSchemaViolations();
    } finally {
      rmSync(own.home, { recursive: true, force: true });
    }
  });
});
