import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type TestContext, test } from "node:test";
import type { ClientRequestParams } from "@knightcode/app-server-protocol";
import { ScriptedModelServer, waitUntil } from "@knightcode/testkit";
import { ReconnectingClient, SpawnedServerTransport, type ResumedThread, type TurnEvent } from "../src/index.js";

const BIN = fileURLToPath(new URL("../../../cli/bin/knightcode.js", import.meta.url));
const TOKEN = "client-replay-token-0123456789abcdef";

/** A real `knightcode app-server` with a WebSocket listener, its home in a temporary folder; its stdio keeps it up. */
function spawnServer(model: ScriptedModelServer, home: string, readyFile: string): SpawnedServerTransport {
  const agentDir = join(home, ".knightcode", "agent");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson()));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: agentDir, KNIGHTCODE_APP_SERVER_TOKEN: TOKEN };
  delete env.KNIGHTCODE_CODING_AGENT_SESSION_DIR;
  return new SpawnedServerTransport({
    command: process.execPath,
    args: [BIN, "app-server", "--listen", "ws://127.0.0.1:0", "--listen-ready-file", readyFile],
    cwd: home,
    env,
    stderr: "ignore",
  });
}

/** A server for one test, with its model and home, and a ReconnectingClient on it; all gone when the test ends. */
async function started(t: TestContext, name: string, initialize: ClientRequestParams<"initialize">) {
  const model = await ScriptedModelServer.start();
  const home = mkdtempSync(join(tmpdir(), `kc-client-${name}-`));
  const server = spawnServer(model, home, join(home, "ready.json"));
  t.after(async () => {
    server.close();
    await server.exited;
    await model.close();
    rmSync(home, { recursive: true, force: true });
  });
  const client = await ReconnectingClient.connect({ readyFile: join(home, "ready.json"), token: TOKEN, initialize, retryDelaysMs: [20] });
  t.after(() => client.close());
  const cwd = join(home, "project");
  mkdirSync(cwd);
  return { model, client, cwd };
}

test("a runTurn across a dropped connection ends with its real turn/completed and yields every delta once", async (t) => {
  const { model, client, cwd } = await started(t, "replay", { clientInfo: { name: "client-replay-test", version: "0" } });
  const { thread } = await client.request("thread/start", { cwd });

  const chunks = Array.from({ length: 40 }, (_, index) => `${index} `);
  let release!: () => void;
  model.enqueue({ text: chunks, pauseAfter: 5, gate: new Promise<void>((resolve) => (release = resolve)) });
  const run = await client.runTurn(thread.id, "count to forty");
  const events: TurnEvent[] = [];
  const iterated = (async () => {
    for await (const event of run.events) events.push(event);
  })();
  await waitUntil("the first deltas", () => events.some((event) => event.method === "item/agentMessage/delta") || undefined);

  const reconnected = new Promise<ResumedThread[]>((resolve) => client.onReconnect(resolve));
  // The rest streams while the client is away.
  client.onDisconnect(() => release());
  await client.client.close();
  const [resumed] = await reconnected;
  assert.ok(resumed?.ok && resumed.result.replayed === true, "the server replayed what was missed");

  const completed = await run.completed;
  await iterated;
  assert.equal(completed.status, "completed");
  assert.equal(completed.id, run.turnId);
  const deltas = events.filter((event) => event.method === "item/agentMessage/delta").map((event) => event.params.delta);
  assert.equal(deltas.join(""), chunks.join(""), "every delta, once, in order");
  assert.equal(events.at(-1)?.method, "turn/completed");
});

test("F5 during an approval: a runTurn with requests gets the held approval again after the reconnection, answers it, and the turn completes", async (t) => {
  const { model, client, cwd } = await started(t, "held", {
    clientInfo: { name: "client-held-test", version: "0" },
    capabilities: { holdRequests: true },
  });
  const { thread } = await client.request("thread/start", { cwd, approvalMode: "ask" });
  model.enqueue({ toolCalls: [{ id: "call_held", name: "write", arguments: { path: "held.txt", content: "kept\n" } }] }, { text: "written" });
  const run = await client.runTurn(thread.id, "write it", { requests: true });
  const asked: string[] = [];
  let first = true;
  const methods: string[] = [];
  for await (const event of run.events) {
    methods.push(event.method);
    if (!("request" in event) || event.method !== "item/toolCall/requestApproval") continue;
    asked.push(event.params.itemId);
    if (first) {
      // The first time the approval shows, the connection drops: the server holds it for this client.
      first = false;
      const reconnected = new Promise<ResumedThread[]>((resolve) => client.onReconnect(resolve));
      await client.client.close();
      await reconnected;
      continue;
    }
    assert.equal(event.request.respond({ decision: "accept" }), true);
  }
  assert.deepEqual(asked, ["call_held", "call_held"], "asked again after the reconnection, in the run");
  assert.ok(methods.indexOf("item/started") < methods.indexOf("item/toolCall/requestApproval"), "the call's item/started comes first");
  assert.equal((await run.completed).status, "completed");
  assert.equal(methods.at(-1), "turn/completed");
});
