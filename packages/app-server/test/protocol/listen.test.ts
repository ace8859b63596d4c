import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppServerClient, WebSocketTransport } from "@knightcode/app-server-client";
import { runCli, type TestServer, startServer, waitUntil, type SpawnOptions } from "../support/harness.js";

const TOKEN = "test-token-0123456789abcdef0123456789";

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
    await assert.rejects(WebSocketTransport.connect({ url, headers: { authorization: "Bearer wrong" } }), /HTTP 401/);
    await assert.rejects(WebSocketTransport.connect({ url, headers: { authorization: `Bearer ${TOKEN}x` } }), /HTTP 401/);
    await assert.rejects(WebSocketTransport.connect({ url, headers: { authorization: `Bearer ${TOKEN}` }, origin: "http://evil.test" }), /HTTP 403/);
    await assert.rejects(WebSocketTransport.connect({ url, token: TOKEN, origin: "http://evil.test" }), /HTTP 403/);
    // Our client never sends its token: a listener that cannot prove it holds the same one is not the server.
    await assert.rejects(WebSocketTransport.connect({ url, token: TOKEN + "x" }), { kind: "untrusted" });
    const allowed = await WebSocketTransport.connect({ url, token: TOKEN, origin: "http://allowed.test" });
    allowed.close();
  });

  test("a client that sends the token in the Authorization header, as the spec has it, still connects", async () => {
    const transport = await WebSocketTransport.connect({ url, headers: { authorization: `Bearer ${TOKEN}` } });
    const client = new AppServerClient(transport, { requestTimeoutMs: 15_000 });
    await client.initialize({ clientInfo: { name: "bearer-only", version: "0" } });
    assert.ok((await client.request("server/diagnostics", {})).uptimeMs >= 0);
    await client.close();
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
});

/** A server listening with `options`, its URL once it said where. */
async function listening(options: SpawnOptions): Promise<{ server: TestServer; url: string }> {
  const server = await startServer(options);
  const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  return { server, url };
}

/** The token opens a connection that completes a handshake; a wrong one fails the listener's proof, or is refused before the upgrade when sent. */
async function acceptsOnly(server: TestServer, url: string, token: string): Promise<void> {
  const ws = await server.connectWebSocket(url, token);
  await ws.initialize();
  assert.ok((await ws.request("server/diagnostics", {})).uptimeMs >= 0);
  await ws.client.close();
  const wrong = token.slice(0, -1) + (token.endsWith("0") ? "1" : "0");
  await assert.rejects(WebSocketTransport.connect({ url, token: wrong }), { kind: "untrusted" });
  await assert.rejects(WebSocketTransport.connect({ url, headers: { authorization: `Bearer ${wrong}` } }), /HTTP 401/);
}

describe("the --listen token, from each source", () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "kc-listen-token-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("from KNIGHTCODE_APP_SERVER_TOKEN: the token connects, a wrong one is refused, nothing is warned", async () => {
    const { server, url } = await listening({ args: ["--listen", "ws://127.0.0.1:0"], env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
    try {
      await acceptsOnly(server, url, TOKEN);
      assert.doesNotMatch(server.stderr, /warning/);
    } finally {
      await server.close();
    }
  });

  test("from a 0600 --listen-token-file: the token connects, a wrong one is refused, nothing is warned", async () => {
    const file = join(dir, "token");
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    const { server, url } = await listening({ args: ["--listen", "ws://127.0.0.1:0", "--listen-token-file", file] });
    try {
      await acceptsOnly(server, url, TOKEN);
      assert.doesNotMatch(server.stderr, /warning/);
    } finally {
      await server.close();
    }
  });

  test("--listen-token still works, with a one-line warning naming the alternatives", async () => {
    const { server, url } = await listening({ args: ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN] });
    try {
      await acceptsOnly(server, url, TOKEN);
      const warnings = server.stderr.split("\n").filter((line) => /warning/.test(line));
      assert.equal(warnings.length, 1, server.stderr);
      assert.match(warnings[0]!, /--listen-token is visible to other local users.*--listen-token-file <path> or KNIGHTCODE_APP_SERVER_TOKEN/);
    } finally {
      await server.close();
    }
  });
});
describe("--listen refuses what it cannot make safe", () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "kc-listen-refuse-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string, mode: number) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    chmodSync(path, mode);
    return path;
  };

  for (const [label, args, env, message] of [
    [
      "a non-loopback address",
      () => ["--listen", "ws://0.0.0.0:0", "--listen-token-file", file("a", TOKEN, 0o600)],
      {},
      /--listen accepts loopback addresses only/,
    ],
    [
      "a public host name",
      () => ["--listen", "ws://example.com:1234", "--listen-token-file", file("b", TOKEN, 0o600)],
      {},
      /--listen accepts loopback addresses only/,
    ],
    [
      "a wss or http URL",
      () => ["--listen", "http://127.0.0.1:0", "--listen-token-file", file("c", TOKEN, 0o600)],
      {},
      /--listen takes a ws:\/\/ or unix:\/\/ URL/,
    ],
    [
      "no token",
      () => ["--listen", "ws://127.0.0.1:0"],
      {},
      /--listen needs a token: --listen-token-file <path>, KNIGHTCODE_APP_SERVER_TOKEN or --listen-token <token>/,
    ],
    [
      "a token file others can read (0644)",
      () => ["--listen", "ws://127.0.0.1:0", "--listen-token-file", file("d", TOKEN, 0o644)],
      {},
      /accessible to other users \(mode 0644\); run: chmod 600/,
    ],
    [
      "a missing token file",
      () => ["--listen", "ws://127.0.0.1:0", "--listen-token-file", join(dir, "missing")],
      {},
      /cannot read the token file .*missing: it does not exist/,
    ],
    ["a token file that is a directory", () => ["--listen", "ws://127.0.0.1:0", "--listen-token-file", dir], {}, /is not a regular file/],
    [
      "a short token in a file",
      () => ["--listen", "ws://127.0.0.1:0", "--listen-token-file", file("e", "short\n", 0o600)],
      {},
      /has 5 characters; use at least 32, for example: openssl rand -hex 32/,
    ],
    [
      "a short token in the environment",
      () => ["--listen", "ws://127.0.0.1:0"],
      { KNIGHTCODE_APP_SERVER_TOKEN: "short" },
      /KNIGHTCODE_APP_SERVER_TOKEN has 5 characters; use at least 32, for example: openssl rand -hex 32/,
    ],
    [
      "a short token on the command line",
      () => ["--listen", "ws://127.0.0.1:0", "--listen-token", "t"],
      {},
      /--listen-token has 1 characters; use at least 32/,
    ],
    [
      "a token both on the command line and in a file",
      () => ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN, "--listen-token-file", file("f", TOKEN, 0o600)],
      {},
      /--listen-token or --listen-token-file, not both/,
    ],
  ] as const) {
    test(`${label} exits 2 with a message and never listens`, async () => {
      const result = await runCli(["app-server", ...args()], env);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /listening on/);
    });
  }
});

describe("--listen-ready-file", () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "kc-listen-ready-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("once listening, the file holds the bound URL (port 0 resolved) and the pid, and that URL connects", async () => {
    const file = join(dir, "ready.json");
    const server = await startServer({ args: ["--listen", "ws://127.0.0.1:0", "--listen-ready-file", file], env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
    try {
      const stderrUrl = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
      const ready = JSON.parse(readFileSync(file, "utf8")) as { url: string; pid: number };
      assert.deepEqual(Object.keys(ready).sort(), ["pid", "url"]);
      assert.equal(ready.url, stderrUrl);
      assert.match(ready.url, /^ws:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(new URL(ready.url).port, "0");
      assert.equal(ready.pid, server.pid);
      assert.equal(statSync(file).mode & 0o077, 0, "only the owner reads it");
      assert.deepEqual(readdirSync(dir), ["ready.json"], "no temporary file is left behind");
      await acceptsOnly(server, ready.url, TOKEN);
    } finally {
      await server.close();
    }
  });

  test("an old file is replaced, not appended to", async () => {
    const file = join(dir, "stale.json");
    writeFileSync(file, '{"url":"ws://127.0.0.1:1","pid":1}\n'.repeat(3));
    const server = await startServer({ args: ["--listen", "ws://127.0.0.1:0", "--listen-ready-file", file], env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
    try {
      await server.waitForStderr(/listening on/);
      assert.equal(JSON.parse(readFileSync(file, "utf8")).pid, server.pid);
    } finally {
      await server.close();
    }
  });

  test("without --listen it is a usage error; an unwritable path exits 2 naming it", async () => {
    const alone = await runCli(["app-server", "--listen-ready-file", join(dir, "x.json")]);
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--listen-ready-file needs --listen/);
    const bad = join(dir, "no-such-dir", "ready.json");
    const result = await runCli(["app-server", "--listen", "ws://127.0.0.1:0", "--listen-ready-file", bad], { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /cannot write the ready file .*no-such-dir/);
  });
});
