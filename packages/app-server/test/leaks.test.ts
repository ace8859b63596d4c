import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { waitUntil } from "./support/harness.js";
import { startInProcess, type InProcessServer } from "./support/in-process.js";

// A collection on demand, so "nothing holds it any more" can be checked rather than guessed.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let round = 0; round < 20; round++) {
    collect();
    if (ref.deref() === undefined) return true;
    // Finalization runs between turns of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return false;
}

let model: ScriptedModelServer;
let app: InProcessServer;

before(async () => {
  model = await ScriptedModelServer.start();
  app = await startInProcess(model, { idleUnloadMs: 20 });
});
after(async () => {
  await app.close();
  await model.close();
});

describe("spec: Ownership, unloading, and shutdown (what an unload releases)", () => {
  test("a thread that unloads while its connection stays open is collected: the connection keeps nothing of it", async () => {
    const { client, server } = app;
    const cwd = app.project();
    const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess" });
    model.enqueue({ text: "x".repeat(256 * 1024) });
    const mark = client.notifications.length;
    await client.request("turn/start", { threadId: thread.id, text: "a long answer, please" });
    await client.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
    const ref = new WeakRef(server.loadedThreads!.get(thread.id)!);
    assert.deepEqual(await client.request("thread/unsubscribe", { threadId: thread.id }), { status: "unsubscribed" });
    await client.waitForNotification("thread/status/changed", (p) => p.threadId === thread.id && p.status.type === "notLoaded", { since: mark });
    await waitUntil("the unload to finish", () => server.threadCounts().loaded === 0 || undefined);
    assert.ok(await collected(ref), "the unloaded thread is still reachable");
  });
});
