import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startInProcess, type InProcessServer } from "./support/in-process.js";
import { waitUntil } from "./support/harness.js";

// ThreadManager.relocate, which thread/handoff moves a thread with: what is
// queued while the move runs follows the thread, subscribers hear
// thread/replaced with the same id first, and a failed move leaves the
// thread as it was.

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

function methodsOf(threadId: string): string[] {
  return app.client.notifications.filter((n) => (n.params as { threadId?: string }).threadId === threadId).map((n) => n.method);
}

describe("relocating a thread", () => {
  test("inputs queued while it moves wait, follow it and start after thread/replaced, in order; nothing starts in between", async () => {
    const { thread } = await app.client.request("thread/start", { cwd: app.project() });
    const threads = await app.server.threads();
    const loaded = threads.require(thread.id);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered = false;
    const moving = threads.relocate(loaded, async () => {
      entered = true;
      await held;
      return "moved";
    });
    await waitUntil("the move holds the thread", () => entered);
    model.enqueue({ text: "first answer" }, { text: "second answer" });
    const first = await app.client.request("turn/queue/add", { threadId: thread.id, text: "first" });
    const second = await app.client.request("turn/queue/add", { threadId: thread.id, text: "second" });
    assert.equal(methodsOf(thread.id).includes("turn/started"), false, "nothing starts while the thread is held");
    release();
    const { thread: fresh, result } = await moving;
    assert.equal(result, "moved");
    assert.equal(fresh.id, thread.id);
    assert.notEqual(fresh, loaded, "the thread was loaded again");
    await waitUntil("both queued inputs ran", () => methodsOf(thread.id).filter((m) => m === "turn/completed").length === 2);
    const seen = methodsOf(thread.id);
    assert.ok(seen.indexOf("thread/replaced") < seen.indexOf("turn/started"), seen.join(", "));
    const texts = model.requests.slice(-2).map((r) => JSON.stringify(r.body.messages.at(-1)));
    assert.match(texts[0]!, /first/);
    assert.match(texts[1]!, /second/);
    assert.notEqual(first.queueId, second.queueId);
  });

  test("a move that fails leaves the thread loaded as it was, its queue and subscribers with it", async () => {
    const { thread } = await app.client.request("thread/start", { cwd: app.project() });
    const threads = await app.server.threads();
    const loaded = threads.require(thread.id);
    await assert.rejects(
      threads.relocate(loaded, async () => {
        throw new Error("the move failed");
      }),
      /the move failed/,
    );
    assert.equal(threads.require(thread.id), loaded);
    assert.equal(methodsOf(thread.id).includes("thread/replaced"), false);
    model.enqueue({ text: "still here" });
    await app.client.request("turn/queue/add", { threadId: thread.id, text: "go on" });
    await waitUntil("the thread still takes turns", () => methodsOf(thread.id).includes("turn/completed"));
  });
});
