import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { engineIfLoaded } from "@knightcode/agent/models/engine";
import { providerAsked } from "@knightcode/agent/models/providers";
import { waitUntil } from "@knightcode/testkit";
import { AppServer, ServerContext, createInProcessClient, createLogger } from "../src/index.js";
import { Warming } from "../src/threads/warming.js";

/**
 * The warm-up comes in two parts: the thread layer once a client is
 * connected, the default model's provider (the heaviest part) once a thread
 * opens. A server nobody opens a thread on never loads a provider. This
 * file runs in a process of its own, so nothing else loaded one first.
 */
test("the default model's provider warms once a thread opens, not at the handshake", async () => {
  const home = mkdtempSync(join(tmpdir(), "kc-warm-up-"));
  const agentDir = join(home, "agent");
  mkdirSync(agentDir, { recursive: true });
  const provider = { baseUrl: "http://127.0.0.1:9/v1", api: "openai-responses", apiKey: "local-key", models: [{ id: "m" }] };
  writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { local: provider } }));
  const context = new ServerContext({ log: createLogger({ level: "error" }), agentDir, sessionDir: join(home, "sessions") });
  // The warm-up is run here by hand rather than on its timer, so the test knows when it is over.
  const server = new AppServer({ context, warmUp: false });
  const client = createInProcessClient(server);
  try {
    await client.initialize({ clientInfo: { name: "warm-up-test" } });
    await server.warmUp();
    assert.ok(engineIfLoaded(), "the thread layer is warm");
    assert.equal(providerAsked("openai-responses"), false, "no provider before a thread");
    const cwd = join(home, "project");
    mkdirSync(cwd);
    await client.request("thread/start", { cwd });
    await waitUntil("the default model's provider to warm", () => providerAsked("openai-responses"));
  } finally {
    await server.shutdown("test over");
    await context.dispose();
    rmSync(home, { recursive: true, force: true });
  }
});

test("for a thread that will want the sandbox, its probe begins in the step the thread opens in, so the thread's load overlaps it; for others it does not", () => {
  const probes: string[] = [];
  const warming = new Warming({
    agentDir: "/nonexistent",
    registry: () => {
      throw new Error("no model is warmed before the warm-up has begun");
    },
    log: createLogger({ level: "error" }),
    sandbox: async () => void probes.push("probe"),
  });
  warming.threadOpening();
  assert.deepEqual(probes, [], "a fullAccess start, or a resume, leaves the probe to the warm-up and to the thread's own need");
  warming.threadOpening(true);
  assert.deepEqual(probes, ["probe"]);
});
