// A server as the benches that watch it from outside run one: a home of
// its own with the given models, a project folder, the inspector on a free
// loopback port (to read or collect inside it), stdio for the main client
// and a loopback WebSocket listener for the rest.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectInspector, inspectorUrl } from "./inspector-gc.mjs";

const { AppServerClient, SpawnedServerTransport } = await import(new URL("../../packages/app-server-client/dist/src/index.js", import.meta.url));
const BIN = fileURLToPath(new URL("../../packages/cli/bin/knightcode.js", import.meta.url));

/** Polls `read` until it answers something, for at most `timeoutMs`. */
export async function waitFor(read, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts the server, initializes its stdio client and connects the inspector. */
export async function startListeningServer({ name, modelsJson, token, requestTimeoutMs = 120_000 }) {
  const home = mkdtempSync(join(tmpdir(), `kc-bench-${name}-`));
  const agentDir = join(home, ".knightcode", "agent");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(modelsJson));
  const cwd = join(home, "project");
  mkdirSync(cwd);
  const env = { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: agentDir, KNIGHTCODE_APP_SERVER_TOKEN: token };
  delete env.KNIGHTCODE_CODING_AGENT_SESSION_DIR;
  delete env.NODE_EXTRA_CA_CERTS;
  const transport = new SpawnedServerTransport({
    command: process.execPath,
    args: ["--inspect=127.0.0.1:0", BIN, "app-server", "--listen", "ws://127.0.0.1:0"],
    cwd: home,
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.child.stderr.on("data", (chunk) => (stderr += chunk));
  const main = new AppServerClient(transport, { requestTimeoutMs });
  await main.initialize({ clientInfo: { name: `bench-${name}`, version: "0" } });
  const url = await waitFor(() => /(?<!Debugger )listening on (ws:\S+)/.exec(stderr)?.[1]);
  const inspector = await connectInspector(await waitFor(() => inspectorUrl(stderr)));
  return {
    main,
    url,
    cwd,
    pid: transport.child.pid,
    inspector,
    /** A new WebSocket client, initialized with `capabilities` if given. */
    async connect(capabilities) {
      const client = await AppServerClient.connectWebSocket({ url, token, requestTimeoutMs });
      await client.initialize({ clientInfo: { name: "bench", version: "0" }, ...(capabilities ? { capabilities } : {}) });
      return client;
    },
    async close() {
      inspector.close();
      await main.close().catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
