import assert from "node:assert/strict";
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppServerClient, ReconnectingClient, WebSocketTransport } from "@knightcode/app-server-client";
import { NO_OTHER_USER, otherUser } from "@knightcode/testkit";
import { runCli, startServer, waitUntil, type TestServer } from "../support/harness.js";

// Issue 27, door 8: a Unix socket listener in a private folder for local clients.
const TOKEN = "listen-unix-token-0123456789abcdef0123456789";
const CLIENT_INFO = { clientInfo: { name: "listen-unix-test", version: "0" } };

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), "kc-unix-"));
  // Another user's processes must reach the folders a test gives them inside.
  chmodSync(dir, 0o755);
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function listeningAt(socket: string, extra: string[] = []): Promise<TestServer> {
  const server = await startServer({ args: ["--listen", `unix://${socket}`, ...extra], env: { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
  await server.waitForStderr(/listening on unix:/);
  return server;
}

const runServer = (args: string[]) => runCli(["app-server", ...args], { KNIGHTCODE_APP_SERVER_TOKEN: TOKEN });

describe("--listen unix://PATH", () => {
  test("creates a missing folder 0700, listens on a 0600 socket, writes unix:// in the ready file, and both clients connect", async () => {
    const folder = join(dir, "created");
    const socket = join(folder, "app.sock");
    const readyFile = join(dir, "unix-ready.json");
    const server = await listeningAt(socket, ["--listen-ready-file", readyFile]);
    try {
      assert.match(server.stderr, new RegExp(`listening on unix://${socket}\\n`));
      assert.equal(lstatSync(folder).mode & 0o777, 0o700);
      assert.ok(lstatSync(socket).isSocket());
      assert.equal(lstatSync(socket).mode & 0o777, 0o600);
      assert.equal(JSON.parse(readFileSync(readyFile, "utf8")).url, `unix://${socket}`);

      const client = await AppServerClient.connectWebSocket({ url: `unix://${socket}`, token: TOKEN, requestTimeoutMs: 15_000 });
      await client.initialize(CLIENT_INFO);
      assert.ok((await client.request("server/diagnostics", {})).uptimeMs >= 0);
      await client.close();

      const reconnecting = await ReconnectingClient.connect({ readyFile, token: TOKEN, initialize: CLIENT_INFO });
      assert.ok((await reconnecting.request("server/diagnostics", {})).uptimeMs >= 0);
      await reconnecting.close();

      // The socket is no way around the token: a process that reaches the path without it is refused.
      await assert.rejects(WebSocketTransport.connect({ url: `unix://${socket}` }), /HTTP 401/);
      await assert.rejects(WebSocketTransport.connect({ url: `unix://${socket}`, token: TOKEN + "x" }), { kind: "untrusted" });
    } finally {
      await server.close();
    }
    await waitUntil("the socket to be removed on exit", () => lstatSync(socket, { throwIfNoEntry: false }) === undefined || undefined);
  });

  test("a socket left by a server that was killed is removed; a live one is refused", async () => {
    const folder = join(dir, "stale");
    mkdirSync(folder, { mode: 0o700 });
    const socket = join(folder, "app.sock");
    const killed = await listeningAt(socket);
    killed.transport.child.kill("SIGKILL");
    await killed.waitForExit();
    killed.cleanup();
    assert.ok(lstatSync(socket).isSocket(), "the killed server left its socket");
    const second = await listeningAt(socket);
    try {
      const refused = await runServer(["--listen", `unix://${socket}`]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /another server already listens at/);
      const client = await AppServerClient.connectWebSocket({ url: `unix://${socket}`, token: TOKEN });
      await client.initialize(CLIENT_INFO);
      await client.close();
    } finally {
      await second.close();
    }
  });

  for (const [label, prepare, message] of [
    [
      "a folder others may write (0777)",
      (folder: string) => (mkdirSync(folder), chmodSync(folder, 0o777)),
      /the socket folder must be yours alone: .* is writable by other users \(mode 0777\)/,
    ],
    ["a folder its group may write (0770)", (folder: string) => (mkdirSync(folder), chmodSync(folder, 0o770)), /is writable by other users \(mode 0770\)/],
    [
      "a symlink to a folder of ours",
      (folder: string) => (mkdirSync(`${folder}-real`, { mode: 0o700 }), symlinkSync(`${folder}-real`, folder)),
      /is a symbolic link, not a folder of your own/,
    ],
    [
      "a regular file at the socket path",
      (folder: string) => (mkdirSync(folder, { mode: 0o700 }), writeFileSync(join(folder, "app.sock"), "")),
      /exists and is not a socket/,
    ],
  ] as const) {
    test(`${label} exits 2 with a message and never listens`, async () => {
      const folder = join(dir, `refused-${Math.random().toString(36).slice(2, 8)}`);
      prepare(folder);
      const result = await runServer(["--listen", `unix://${join(folder, "app.sock")}`]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /listening on/);
    });
  }

  test("a folder that belongs to another user exits 2", { skip: NO_OTHER_USER }, async () => {
    const folder = join(dir, "theirs");
    mkdirSync(folder, { mode: 0o700 });
    chownSync(folder, otherUser()!.uid, otherUser()!.gid);
    const result = await runServer(["--listen", `unix://${join(folder, "app.sock")}`]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`belongs to user ${otherUser()!.uid}, not to you`));
  });
});

describe("a client checks the socket's folder before it connects", () => {
  test("another user's socket, in a folder of theirs: refused, untrusted, and never connected to", { skip: NO_OTHER_USER }, async () => {
    const user = otherUser()!;
    // Their folder hangs off a sticky, world-writable one, as /tmp would give them.
    const shared = join(dir, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const theirs = join(shared, "theirs");
    const socket = join(theirs, "app.sock");
    const listener = user.node(
      `import { mkdirSync, chmodSync } from "node:fs"; import { createServer } from "node:net";
       mkdirSync(${JSON.stringify(theirs)}, { mode: 0o755 });
       createServer((connection) => { process.stdout.write("connected\\n"); connection.destroy(); })
         .listen(${JSON.stringify(socket)}, () => { chmodSync(${JSON.stringify(socket)}, 0o777); process.stdout.write("listening\\n"); });`,
    );
    let output = "";
    listener.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitUntil("their socket to listen", () => output.includes("listening") || undefined);
      const error = (await AppServerClient.connectWebSocket({ url: `unix://${socket}`, token: TOKEN }).catch((e: unknown) => e)) as {
        kind?: string;
        message?: string;
      };
      assert.equal(error.kind, "untrusted", String(error.message));
      assert.match(error.message!, new RegExp(`belongs to user ${user.uid}`));
      assert.doesNotMatch(output, /connected/);
    } finally {
      listener.kill("SIGKILL");
    }
  });

  test("our own server's folder opened to others after it started: the client refuses it", async () => {
    const folder = join(dir, "opened");
    const socket = join(folder, "app.sock");
    const server = await listeningAt(socket);
    try {
      chmodSync(folder, 0o777);
      await assert.rejects(AppServerClient.connectWebSocket({ url: `unix://${socket}`, token: TOKEN }), (error: { kind?: string; message?: string }) => {
        assert.equal(error.kind, "untrusted");
        assert.match(error.message!, /not connecting to unix:.*is writable by other users \(mode 0777\)/);
        return true;
      });
    } finally {
      chmodSync(folder, 0o700);
      await server.close();
    }
  });
});
