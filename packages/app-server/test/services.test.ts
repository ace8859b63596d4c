import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { AppServer, ServerContext, createInProcessClient, createLogger } from "../src/index.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url));

/** A server without the post-handshake warm-up, so that what is loaded is what the requests asked for. */
async function coldServer() {
  const home = mkdtempSync(join(tmpdir(), "kc-services-"));
  const context = new ServerContext({ log: createLogger({ level: "error" }), agentDir: join(home, "agent"), sessionDir: join(home, "sessions") });
  const server = new AppServer({ context, warmUp: false });
  const client = createInProcessClient(server);
  await client.initialize({ clientInfo: { name: "services-test" } });
  const close = async () => {
    await server.shutdown("test over");
    await context.dispose();
    rmSync(home, { recursive: true, force: true });
  };
  return { server, client, home, close };
}

describe("services: a method loads what it uses", () => {
  test("the handshake loads no service", async () => {
    const { server, close } = await coldServer();
    try {
      assert.deepEqual([...server.services.loaded], []);
    } finally {
      await close();
    }
  });

  test("serverRequest/list loads nothing: without a thread manager no thread was asked anything", async () => {
    const { server, client, close } = await coldServer();
    try {
      assert.deepEqual(await client.request("serverRequest/list", {}), { requests: [] });
      assert.deepEqual([...server.services.loaded], []);
      assert.equal(server.loadedThreads, undefined);
    } finally {
      await close();
    }
  });

  test("config/*, mcp/*, project/trust/*, environment/* and tool/settings/write load the trust store at most: no environment, no thread manager", async () => {
    const { server, client, home, close } = await coldServer();
    try {
      await client.request("config/write", { scope: "global", key: "retry.provider.maxRetryDelayMs", value: 5000 });
      assert.equal(JSON.parse(readFileSync(join(home, "agent", "settings.json"), "utf8")).retry.provider.maxRetryDelayMs, 5000);
      await client.request("config/read", {});
      await client.request("mcp/list", { cwd: home });
      await client.request("mcp/add", { scope: "global", name: "files", config: { command: "true" } });
      await client.request("mcp/update", { name: "files", enabled: false });
      await client.request("mcp/remove", { scope: "global", name: "files" });
      await client.request("project/trust/set", { cwd: home, trusted: true });
      assert.equal((await client.request("project/trust/read", { cwd: home })).trusted, true);
      await client.request("environment/list", { cwd: home });
      await client.request("environment/save", { cwd: home, environments: [] });
      await client.request("tool/settings/write", { name: "websearch", key: "enabled", value: true });
      assert.deepEqual([...server.services.loaded], ["trust"]);
      assert.equal(server.loadedThreads, undefined);
    } finally {
      await close();
    }
  });

  test("account/* and tool/settings/read load the model registry, not the thread manager; thread/list the catalog alone", async () => {
    const { server, client, close } = await coldServer();
    try {
      await client.request("account/read", {});
      await client.request("tool/settings/read", {});
      await client.request("thread/list", {});
      assert.deepEqual([...server.services.loaded].sort(), ["accounts", "catalog", "registry"]);
      assert.equal(server.loadedThreads, undefined);
    } finally {
      await close();
    }
  });

  test("thread/start builds the thread manager on the same trust store and registry as the file methods", async () => {
    const { server, client, home, close } = await coldServer();
    try {
      const trust = await server.services.trust();
      const registry = await server.services.registry();
      await client.request("thread/start", { cwd: home });
      const threads = server.loadedThreads!;
      assert.equal(threads.environment.trust, trust);
      assert.equal(threads.environment.registry, registry);
    } finally {
      await close();
    }
  });
});

test("methods/table.ts and docs/methods.md are what scripts/methods.mjs derives from the files under methods/", () => {
  try {
    execFileSync(process.execPath, [join(root, "scripts/methods.mjs"), "--check"], { cwd: root, stdio: "pipe" });
  } catch (error) {
    assert.fail(`stale: run node scripts/methods.mjs\n${String((error as { stderr?: Buffer }).stderr ?? error)}`);
  }
});
