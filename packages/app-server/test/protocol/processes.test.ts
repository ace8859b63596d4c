import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test, type TestContext } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, waitUntil, type TestServer } from "../support/harness.js";
import { isAlive } from "../support/processes.js";

let model: ScriptedModelServer;
before(async () => {
  model = await ScriptedModelServer.start();
});
after(() => model.close());

/** Runs one turn whose bash call leaves `sleep` running in the background; answers its pid. */
async function startBackgroundJob(t: TestContext, server: TestServer): Promise<{ threadId: string; pid: number }> {
  const cwd = server.project();
  const pidFile = join(cwd, "job.pid");
  const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
  model.enqueue(
    { toolCalls: [{ id: "call_job", name: "bash", arguments: { command: `sleep 1000 > /dev/null 2>&1 & echo $! > ${pidFile}` } }] },
    { text: "started" },
  );
  const mark = server.main.notifications.length;
  await server.main.request("turn/start", { threadId: thread.id, text: "start a job" });
  const completed = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
  assert.equal(completed.turn.status, "completed");
  assert.ok(existsSync(pidFile));
  const pid = Number(readFileSync(pidFile, "utf8"));
  t.after(() => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  });
  assert.ok(isAlive(pid), "the job outlives the bash call");
  return { threadId: thread.id, pid };
}

describe("spec: Ownership, unloading, and shutdown (processes a thread started)", () => {
  test("a background job a bash call started dies when its thread unloads", async (t) => {
    const server = await startServer({ model, env: { KNIGHTCODE_THREAD_IDLE_MS: "200" } });
    t.after(() => server.cleanup());
    const { threadId, pid } = await startBackgroundJob(t, server);
    const mark = server.main.notifications.length;
    assert.equal((await server.main.request("thread/unsubscribe", { threadId })).status, "unsubscribed");
    await server.main.waitForNotification("thread/status/changed", (p) => p.threadId === threadId && p.status.type === "notLoaded", { since: mark });
    await waitUntil(`process ${pid} to die`, () => !isAlive(pid));
    assert.equal((await server.close()).code, 0);
  });

  test("a background job a bash call started dies when the server exits", async (t) => {
    const server = await startServer({ model });
    t.after(() => server.cleanup());
    const { pid } = await startBackgroundJob(t, server);
    assert.equal((await server.close()).code, 0);
    await waitUntil(`process ${pid} to die`, () => !isAlive(pid));
  });
});
