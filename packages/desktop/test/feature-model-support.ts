import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AppServerClient } from "@knightcode/app-server-client";
import { AppServer, ServerContext, createInProcessClient, createLogger } from "@knightcode/app-server";
import type { ResumedThread } from "@knightcode/app-server-client/browser";
import { ScriptedModelServer } from "@knightcode/testkit";
import type { RequestsConnection } from "../src/features/requests/model.js";
import type { SidebarConnection } from "../src/features/sidebar/model.js";

/**
 * A real app server in the test process, with the scripted model behind it:
 * what a feature model is tested against, over the in-memory transport.
 */
export interface InProcessServer {
  model: ScriptedModelServer;
  project: string;
  /** A new initialized client, as a page (`holdRequests` and `subagents`, like the page's). */
  client(): Promise<AppServerClient>;
  close(): Promise<void>;
}

export async function startInProcessServer(): Promise<InProcessServer> {
  const model = await ScriptedModelServer.start();
  const home = mkdtempSync(join(tmpdir(), "kc-desktop-model-"));
  const agentDir = join(home, "agent");
  const project = join(home, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(model.modelsJson()));
  const context = new ServerContext({ agentDir, env: {}, log: createLogger({ level: "error" }) });
  const server = new AppServer({ context });
  const clients: AppServerClient[] = [];
  return {
    model,
    project,
    async client() {
      const client = createInProcessClient(server);
      clients.push(client);
      await client.initialize({ clientInfo: { name: "desktop-model-test" }, capabilities: { holdRequests: true, subagents: true } });
      return client;
    },
    async close() {
      for (const client of clients) await client.close();
      await server.shutdown("test over");
      await model.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A client as the page's `Connection`; `reconnect` plays what a reconnection tells the features. */
export function asConnection(client: AppServerClient): SidebarConnection & RequestsConnection & { reconnect(resumed: ResumedThread[]): void } {
  const reconnects = new Set<(resumed: ResumedThread[]) => void>();
  return {
    request: (method, params, options) => client.request(method, params, options),
    on: (method, handler) => client.onNotification(method, handler),
    onRequest: (method, handler) => client.onRequest(method, handler),
    onReconnect: (listener) => {
      reconnects.add(listener);
      return () => reconnects.delete(listener);
    },
    reconnect: (resumed) => {
      for (const listener of reconnects) listener(resumed);
    },
  };
}
