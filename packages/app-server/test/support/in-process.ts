import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryTransportPair } from "@knightcode/app-server-client";
import type { ScriptedModelServer } from "@knightcode/testkit";
import { AppServer, ServerContext, asServerTransport, createLogger } from "../../src/index.js";
import { TestClient } from "./harness.js";

export interface InProcessServer {
  server: AppServer;
  client: TestClient;
  home: string;
  /** A project folder inside the home. */
  project(name?: string): string;
  close(): Promise<void>;
}

/**
 * The server in this process, on a temporary home whose models.json points
 * at `model`, with one initialized in-memory connection: for tests that must
 * look inside (what is still reachable, what a shared object was asked).
 */
export async function startInProcess(model: ScriptedModelServer, options: { idleUnloadMs?: number } = {}): Promise<InProcessServer> {
  const home = mkdtempSync(join(tmpdir(), "kc-in-process-"));
  const agentDir = join(home, "agent");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson()));
  const context = new ServerContext({
    agentDir,
    idleUnloadMs: options.idleUnloadMs ?? 60_000,
    log: createLogger({ level: "error" }),
    env: { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_SESSION_DIR: undefined },
  });
  const server = new AppServer({ context });
  const [clientEnd, serverEnd] = createMemoryTransportPair();
  server.connect(asServerTransport(serverEnd), "memory");
  const client = new TestClient(clientEnd, "memory");
  await client.initialize();
  let projects = 0;
  return {
    server,
    client,
    home,
    project(name = `project-${++projects}`) {
      const dir = join(home, name);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    async close() {
      await server.shutdown("test over", { timings: { answerDeadlineMs: 2000, drainDeadlineMs: 3000 } });
      client.assertNoSchemaViolations();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
