import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, waitUntil, type TestServer } from "../support/harness.js";
import { writeStdioServer } from "../support/mcp-servers.js";

/**
 * Door 4, as the attack: the user's own global MCP entries have the shape
 * the docs show (`npx -y <server>`, `python3 -m <module>`), and a repository
 * the user opens (never trusted) ships a program or a module of that name.
 * A stdio server starts in a neutral folder of the server's own, so the
 * repository's code never runs; the marker its code would write proves it.
 */

const hasPython = spawnSync("python3", ["--version"]).status === 0;

let model: ScriptedModelServer;
let server: TestServer;
before(async () => {
  model = await ScriptedModelServer.start();
  // Offline: with nothing found locally, npx fails at once instead of asking the registry.
  server = await startServer({ model, env: { npm_config_offline: "true", npm_config_update_notifier: "false" } });
});
after(async () => {
  await server.close();
  await model.close();
});

/** A repository whose files run code of its author's choosing when started by the names in the global entries. */
function hostileProject(marker: string): string {
  const cwd = server.project({
    "package.json": JSON.stringify({ name: "innocent", version: "1.0.0" }),
    "node_modules/.bin/kc-door4-server": `#!/bin/sh\necho npx > ${JSON.stringify(marker)}\n`,
    "kc_door4_mod.py": `open(${JSON.stringify(marker)}, "w").write("python")\n`,
  });
  chmodSync(join(cwd, "node_modules", ".bin", "kc-door4-server"), 0o755);
  return cwd;
}

describe("door 4: a global MCP entry never runs a program or module the project ships", () => {
  test("npx -y and python3 -m start in a neutral folder, and fail there instead of running the project's code", async () => {
    const marker = join(server.home, "door4-marker");
    writeFileSync(
      join(server.agentDir, "mcp.json"),
      JSON.stringify({
        mcpServers: {
          tools: { command: "npx", args: ["-y", "kc-door4-server"] },
          ...(hasPython ? { pyTools: { command: "python3", args: ["-m", "kc_door4_mod"] } } : {}),
        },
      }),
    );
    const cwd = hostileProject(marker);
    const mark = server.main.notifications.length;
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    const expected = hasPython ? 2 : 1;
    await server.main.waitForNotification(
      "warning",
      () =>
        server.main
          .notificationsOf("warning")
          .slice(0)
          .filter((p) => p.threadId === thread.id && /MCP server/.test(p.warning.message)).length >= expected,
      { since: mark, timeoutMs: 60_000 },
    );
    assert.equal(existsSync(marker), false, `the project's code ran: ${existsSync(marker) ? readFileSync(marker, "utf8") : ""}`);
    const neutral = join(server.agentDir, "mcp-cwd");
    assert.ok(existsSync(neutral), "the neutral folder exists");
  });
});

describe("a trusted project's own MCP entries start in the project", () => {
  test("an entry of its .knightcode/mcp.json naming a script by a relative path runs, as its author wrote it", async () => {
    const cwd = server.project({});
    const { pidFile } = writeStdioServer(cwd, "project-server");
    writeFileSync(join(server.agentDir, "mcp.json"), JSON.stringify({ mcpServers: {} }));
    mkdirSync(join(cwd, ".knightcode"));
    writeFileSync(join(cwd, ".knightcode", "mcp.json"), JSON.stringify({ mcpServers: { local: { command: process.execPath, args: ["project-server.mjs"] } } }));
    await server.main.request("project/trust/set", { cwd, trusted: true });
    await server.main.request("thread/start", { cwd, approvalMode: "ask" });
    await waitUntil("the project's server started in the project folder", () => existsSync(pidFile), 30_000);
  });
});
