import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { WebSocketTransport } from "@knightcode/app-server-client";
import { BIN, TestServer, startServer, waitUntil } from "../support/harness.js";

const TOKEN = "test-token-0123456789";

async function startListening(extra: string[] = []): Promise<{ server: TestServer; url: string }> {
  const server = await startServer({ args: ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN, ...extra] });
  const match = await server.waitForStderr(/listening on (ws:\/\/127\.0\.0\.1:\d+)/);
  return { server, url: match[1]! };
}

describe("SPEC-NOTES: More than one connection", () => {
  let server: TestServer;
  let url: string;
  before(async () => ({ server, url } = await startListening(["--allow-origin", "http://allowed.test"])));
  after(async () => {
    if (server) await server.close();
  });

  test("a WebSocket connection does its own handshake and gets its own answers", async () => {
    const ws = await server.connectWebSocket(url, TOKEN);
    const early = await ws.rawRequest("server/diagnostics", {});
    assert.equal(early.error?.code, "notInitialized", "the stdio handshake does not initialize another connection");
    await ws.initialize();
    const [a, b] = await Promise.all([ws.request("server/diagnostics", {}), server.main.request("server/diagnostics", {})]);
    assert.ok(a.uptimeMs >= 0 && b.uptimeMs >= 0);
    await ws.client.close();
  });

  test("opt-outs are per connection", async () => {
    const quiet = await server.connectWebSocket(url, TOKEN, "quiet");
    const loud = await server.connectWebSocket(url, TOKEN, "loud");
    await quiet.initialize(["error"]);
    await loud.initialize();
    quiet.sendRaw("{oops");
    loud.sendRaw("{oops");
    await loud.waitForNotification("error");
    await quiet.request("server/diagnostics", {});
    assert.equal(quiet.notificationsOf("error").length, 0);
    await quiet.client.close();
    await loud.client.close();
  });

  test("a malformed WebSocket message gets a parseError and the socket stays open", async () => {
    const ws = await server.connectWebSocket(url, TOKEN);
    await ws.initialize();
    ws.sendRaw("[[[[");
    const note = await ws.waitForNotification("error");
    assert.equal(note.kind, "parseError");
    assert.ok((await ws.request("server/diagnostics", {})).rssBytes > 0);
    await ws.client.close();
  });

  test("an upgrade without the token, with a wrong one, or from a foreign origin is refused", async () => {
    await assert.rejects(WebSocketTransport.connect({ url }), /HTTP 401/);
    await assert.rejects(WebSocketTransport.connect({ url, token: "wrong" }), /HTTP 401/);
    await assert.rejects(WebSocketTransport.connect({ url, token: TOKEN + "x" }), /HTTP 401/);
    await assert.rejects(WebSocketTransport.connect({ url, token: TOKEN, origin: "http://evil.test" }), /HTTP 403/);
    const allowed = await WebSocketTransport.connect({ url, token: TOKEN, origin: "http://allowed.test" });
    allowed.close();
  });

  test("a plain HTTP request is told to upgrade", async () => {
    const port = new URL(url).port;
    const response = await fetch(`http://127.0.0.1:${port}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 426);
  });
});

describe("stdio stays the first connection", () => {
  test("closing stdin shuts the server down and closes WebSocket connections", async () => {
    const { server, url } = await startListening();
    const ws = await server.connectWebSocket(url, TOKEN);
    await ws.initialize();
    const exit = await server.close();
    assert.equal(exit.code, 0);
    await waitUntil("the socket to close", () => ws.client.isConnectionClosed || undefined);
  });

  test("a WebSocket client going away leaves the server serving stdio", async () => {
    const { server, url } = await startListening();
    try {
      const ws = await server.connectWebSocket(url, TOKEN);
      await ws.initialize();
      await ws.client.close();
      assert.ok((await server.main.request("server/diagnostics", {})).uptimeMs >= 0);
    } finally {
      await server.close();
    }
  });

  test("the token can come from KNIGHTCODE_APP_SERVER_TOKEN", async () => {
    const server = await startServer({ args: ["--listen", "ws://127.0.0.1:0"], env: { KNIGHTCODE_APP_SERVER_TOKEN: "from-env" } });
    try {
      const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
      const ws = await server.connectWebSocket(url, "from-env");
      await ws.initialize();
      await ws.client.close();
    } finally {
      await server.close();
    }
  });
});

function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, KNIGHTCODE_APP_SERVER_TOKEN: "", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("--listen refuses what it cannot make safe", () => {
  for (const [label, args] of [
    ["a non-loopback address", ["--listen", "ws://0.0.0.0:0", "--listen-token", "t"]],
    ["a public host name", ["--listen", "ws://example.com:1234", "--listen-token", "t"]],
    ["a wss or http URL", ["--listen", "http://127.0.0.1:0", "--listen-token", "t"]],
    ["no token", ["--listen", "ws://127.0.0.1:0"]],
  ] as const) {
    test(`${label} exits 2 with a message`, async () => {
      const result = await runCli(["app-server", ...args]);
      assert.equal(result.code, 2);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, /--listen/);
    });
  }
});
