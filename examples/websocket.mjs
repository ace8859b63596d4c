// Over WebSocket: start a server that listens on a free port, learn the port
// from its ready file, and talk to it with a client that reconnects (and
// resumes its threads) if the server restarts.
//   node examples/websocket.mjs [folder] [message]
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReconnectingClient } from "@knightcode/app-server-client";

const cwd = process.argv[2] ?? process.cwd();
const text = process.argv[3] ?? "Say hello.";
const token = randomBytes(32).toString("hex");
const dir = mkdtempSync(join(tmpdir(), "knightcode-example-"));
const readyFile = join(dir, "ready.json");

// The token goes in the environment, where other users cannot read it.
const server = spawn("knightcode", ["app-server", "--listen", "ws://127.0.0.1:0", "--listen-ready-file", readyFile], {
  env: { ...process.env, KNIGHTCODE_APP_SERVER_TOKEN: token },
  stdio: ["pipe", "ignore", "ignore"],
});
const exited = new Promise((resolve) => server.on("exit", resolve));
try {
  await waitForFile(readyFile);
  console.log(`server ${JSON.parse(readFileSync(readyFile, "utf8")).url}`);
  const client = await ReconnectingClient.connect({ readyFile, token, initialize: { clientInfo: { name: "websocket", version: "1.0" } } });
  client.onReconnect((resumed) => console.log(`reconnected; resumed ${resumed.filter((r) => r.ok).length} thread(s)`));
  try {
    const { thread } = await client.request("thread/start", { cwd });
    const turn = await client.runTurn(thread.id, text);
    for await (const { method, params } of turn.events) {
      if (method === "item/agentMessage/delta") process.stdout.write(params.delta);
    }
    process.stdout.write(`\n[turn ${(await turn.completed).status}]\n`);
  } finally {
    await client.close();
  }
} finally {
  server.stdin.end(); // closing stdin shuts the server down
  await exited;
  rmSync(dir, { recursive: true, force: true });
}

/** @param {string} path */
async function waitForFile(path) {
  for (let waited = 0; waited < 20_000; waited += 50) {
    try {
      return JSON.parse(readFileSync(path, "utf8"));
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`the server did not write ${path}`);
}
