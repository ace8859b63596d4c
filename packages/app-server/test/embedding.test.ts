import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { AppServer, ServerContext, ThreadManager, createInProcessClient, createLogger } from "../src/index.js";

test("spec: Limits and client reference: a host embeds the server with its own context and ThreadManager", async () => {
  const model = await ScriptedModelServer.start();
  const home = mkdtempSync(join(tmpdir(), "kc-embed-"));
  try {
    const agentDir = join(home, "agent");
    const project = join(home, "project");
    mkdirSync(agentDir, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson()));
    const context = new ServerContext({ agentDir, env: {}, log: createLogger({ level: "error" }), terminal: true });
    const threads = new ThreadManager(context);
    const server = new AppServer({ context, threads });
    const client = createInProcessClient(server);
    await client.initialize({ clientInfo: { name: "embedding-host" } });
    const completed = new Promise((resolve) => client.onNotification("turn/completed", resolve));
    const { thread } = await client.request("thread/start", { cwd: project });
    assert.equal(thread.approvalMode, "fullAccess", "a terminal host's threads default to fullAccess");
    model.enqueue({ text: "embedded answer" });
    await client.request("turn/start", { threadId: thread.id, text: "hello" });
    await completed;
    assert.equal(threads.counts().loaded, 1);
    assert.ok(existsSync(`${thread.sessionFile}.lock`), "the loaded thread owns its session file");
    // The host's shutdown: stop input, dispose the context, await every thread's close.
    await client.close();
    await context.dispose();
    await threads.closeAll();
    assert.equal(threads.counts().loaded, 0);
    assert.equal(existsSync(`${thread.sessionFile}.lock`), false, "closing released the session lock");
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
});
