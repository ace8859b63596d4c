import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { waitUntil } from "./support/harness.js";
import { startInProcess, type InProcessServer } from "./support/in-process.js";

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
