import assert from "node:assert/strict";
import { homedir } from "node:os";
import { after, describe, test } from "node:test";
import { AppServerError } from "@knightcode/app-server-client";
import { TestServer, startServer, waitUntil, waitUntilAsync } from "../support/harness.js";

describe("spec: Handshake", () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) await server.close();
  });
  const spawn = (...args: ConstructorParameters<typeof TestServer>) => {
    const server = new TestServer(...args);
    servers.push(server);
    return server;
  };

  test("initialize with a numeric id answers serverInfo and platform", async () => {
    const server = spawn();
    const result = await server.main.initialize();
    assert.equal(result.serverInfo.name, "knightcode-app-server");
    assert.match(result.serverInfo.version, /^\d+\.\d+\.\d+/);
    assert.equal(result.platform.os, "linux");
    assert.equal(result.platform.arch, process.arch);
    assert.equal(result.platform.homeDir, server.home);
    assert.notEqual(result.platform.homeDir, homedir());
  });

  test("initialize with a string id is answered with that id", async () => {
    const server = spawn();
    const answer = await server.main.rawRequest("initialize", { clientInfo: { name: "x", version: "1" } }, "init-☃");
    assert.equal(answer.id, "init-☃");
    assert.ok(answer.result);
  });

  test("requests before initialize, and before initialized, answer notInitialized", async () => {
    const server = spawn();
    const early = await server.main.rawRequest("server/diagnostics", {});
    assert.equal(early.error?.code, "notInitialized");
    const unknownEarly = await server.main.rawRequest("no/such", {});
    assert.equal(unknownEarly.error?.code, "notInitialized");
    await server.main.rawRequest("initialize", { clientInfo: { name: "x" } });
    const between = await server.main.rawRequest("server/diagnostics", {});
    assert.equal(between.error?.code, "notInitialized");
    assert.match(between.error!.message, /initialized/);
    server.main.sendRaw({ method: "initialized", params: {} });
    const ready = await server.main.rawRequest("server/diagnostics", {});
    assert.ok(ready.result);
  });

  test("a second initialize answers invalidParams", async () => {
    const server = await startServer();
    servers.push(server);
    const again = await server.main.rawRequest("initialize", { clientInfo: { name: "x" } });
    assert.equal(again.error?.code, "invalidParams");
  });

  test("an unknown method answers methodNotFound", async () => {
    const server = await startServer();
    servers.push(server);
    const answer = await server.main.rawRequest("thread/nonsense", {});
    assert.equal(answer.error?.code, "methodNotFound");
    assert.match(answer.error!.message, /thread\/nonsense/);
  });

  test("params that do not match the schema answer invalidParams naming the field", async () => {
    const server = spawn();
    const wrongType = await server.main.rawRequest("initialize", { clientInfo: { name: 42 } });
    assert.equal(wrongType.error?.code, "invalidParams");
    assert.match(wrongType.error!.message, /params\.clientInfo\.name/);
    const tooMany = await server.main.rawRequest("initialize", {
      clientInfo: { name: "x" },
      capabilities: { optOutNotifications: Array.from({ length: 257 }, (_, i) => `n${i}`) },
    });
    assert.equal(tooMany.error?.code, "invalidParams");
    assert.match(tooMany.error!.message, /optOutNotifications/);
    const unknownField = await server.main.rawRequest("initialize", { clientInfo: { name: "x" }, clientInf: {} });
    assert.match(unknownField.error!.message, /unknown field "clientInf"/);
    const notObject = await server.main.rawRequest("initialize", [1, 2]);
    assert.equal(notObject.error?.code, "invalidParams");
    // A refused initialize leaves the connection able to try again.
    const ok = await server.main.rawRequest("initialize", { clientInfo: { name: "x" } });
    assert.ok(ok.result);
  });

  test("the typed client surfaces errors as AppServerError", async () => {
    const server = spawn();
    const error = await server.main.request("server/diagnostics", {}).catch((e: unknown) => e);
    assert.ok(error instanceof AppServerError);
    assert.equal(error.code, "notInitialized");
  });

  test("256 opt-out names are accepted, unknown ones tolerated, and they filter notifications only", async () => {
    const server = spawn();
    const names = ["error", ...Array.from({ length: 255 }, (_, i) => `no/such/notification${i}`)];
    await server.main.initialize(names);
    server.main.sendRaw("this is not json");
    const answer = await server.main.rawRequest("server/diagnostics", {});
    assert.ok(answer.result, "responses are never filtered");
    assert.equal(server.main.notificationsOf("error").length, 0);
  });

  test("without opting out, a malformed line reaches the client as an error notification", async () => {
    const server = await startServer();
    servers.push(server);
    server.main.sendRaw("this is not json");
    const note = await server.main.waitForNotification("error");
    assert.equal(note.kind, "parseError");
  });
});

describe("spec: server/diagnostics", () => {
  test("reports every field, with real zeros for features without work", async () => {
    const server = await startServer();
    try {
      const firstSent = performance.now();
      const first = await server.main.request("server/diagnostics", {});
      assert.deepEqual(Object.keys(first).sort(), [
        "heapBytes",
        "inactiveFactories",
        "listingBytesScanned",
        "listingFilesOpened",
        "loadedThreads",
        "loadingThreads",
        "payloadBytes",
        "payloadFiles",
        "rssBytes",
        "sandbox",
        "uptimeMs",
      ]);
      assert.equal(first.sandbox.kind, process.platform === "linux" ? "bwrap" : process.platform === "darwin" ? "seatbelt" : "none");
      assert.equal(typeof first.sandbox.available, "boolean");
      assert.equal(first.sandbox.reason === undefined, first.sandbox.available, "a reason exactly when it cannot run");
      assert.ok(first.rssBytes > 10 * 2 ** 20 && first.rssBytes < 2 ** 31);
      assert.ok(first.heapBytes > 0 && first.heapBytes < first.rssBytes);
      for (const key of [
        "loadedThreads",
        "loadingThreads",
        "payloadFiles",
        "payloadBytes",
        "inactiveFactories",
        "listingFilesOpened",
        "listingBytesScanned",
      ] as const) {
        assert.equal(first[key], 0, key);
      }
      // Uptime follows the clock: it grows, and by no more than the time that passed here.
      const second = await waitUntilAsync("uptime to grow by 25 ms", async () => {
        const now = await server.main.request("server/diagnostics", {});
        return now.uptimeMs >= first.uptimeMs + 25 ? now : undefined;
      });
      const elapsed = performance.now() - firstSent;
      assert.ok(second.uptimeMs - first.uptimeMs <= Math.ceil(elapsed) + 1, `uptime grew ${second.uptimeMs - first.uptimeMs} ms in ${elapsed} ms`);
    } finally {
      await server.close();
    }
  });
});

describe("spec: Starting (stdout carries protocol messages only)", () => {
  test("a stray console.log or stdout write inside the server goes to stderr", async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "kc-noisy-"));
    const noisy = join(dir, "noisy.mjs");
    // Preloaded into the server process. Nothing can stop a write made before
    // the CLI's first line runs, so it waits until stdout has been claimed, then
    // writes the ways a dependency or an extension might.
    writeFileSync(
      noisy,
      `const original = process.stdout.write;\n` +
        `const wait = setInterval(() => {\n` +
        `  if (process.stdout.write === original) return;\n` +
        `  clearInterval(wait);\n` +
        `  console.log("stray console.log"); console.info("stray console.info"); process.stdout.write("stray write\\n");\n` +
        `  setInterval(() => console.log("stray tick"), 5).unref();\n` +
        `}, 1);\n` +
        `wait.unref();\n`,
    );
    const server = new TestServer({ env: { NODE_OPTIONS: `--import=${noisy}` } });
    try {
      await server.main.initialize();
      for (let i = 0; i < 20; i++) await server.main.request("server/diagnostics", {});
      await server.waitForStderr(/stray write/);
      assert.match(server.stderr, /stray console\.log/);
      assert.match(server.stderr, /stray console\.info/);
      assert.match(server.stderr, /stray tick/);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
    // close() fails the test had any stdout line not been a protocol message.
  });

  test("the log goes to stderr", async () => {
    const server = await startServer();
    await server.main.request("server/diagnostics", {});
    await server.close();
    assert.match(server.stderr, /client "knightcode-tests"/);
    assert.match(server.stderr, /shutting down: stdin closed/);
  });
});

describe("the connection survives bad input", () => {
  test("non-JSON, non-object and shapeless lines each get a parseError notification", async () => {
    const server = await startServer();
    try {
      const bad = [
        "{",
        "[1,2]",
        "42",
        '"text"',
        "null",
        "{}",
        '{"id":1}',
        '{"method":7,"id":1}',
        '{"id":{"a":1},"method":"server/diagnostics"}',
        '{"id":true,"method":"x"}',
      ];
      for (const line of bad) server.main.sendRaw(line);
      await waitUntil("all parse errors", () => server.main.notificationsOf("error").length >= bad.length || undefined);
      assert.ok(server.main.notificationsOf("error").every((n) => n.kind === "parseError"));
      assert.ok((await server.main.request("server/diagnostics", {})).uptimeMs >= 0);
    } finally {
      await server.close();
    }
  });

  test("invalid UTF-8 is a parseError; blank lines are ignored; CRLF is accepted", async () => {
    const server = await startServer();
    try {
      server.transport.child.stdin!.write(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
      server.transport.child.stdin!.write("\n   \n\t\n");
      server.transport.child.stdin!.write('{"id":"crlf","method":"server/diagnostics","params":{}}\r\n');
      const note = await server.main.waitForNotification("error");
      assert.match(note.message, /UTF-8/);
      await waitUntil("the CRLF request's answer", () => server.main.rawResponses.get("crlf"));
      assert.equal(server.main.notificationsOf("error").length, 1);
    } finally {
      await server.close();
    }
  });

  test("U+2028 and U+2029 inside a string do not split the message", async () => {
    const server = new TestServer();
    try {
      const answer = await server.main.rawRequest("initialize", { clientInfo: { name: "a\u2028b\u2029c" } });
      assert.ok(answer.result);
      assert.equal(server.main.notificationsOf("error").length, 0);
    } finally {
      await server.close();
    }
  });

  test("a response to a request the server never sent is reported, not fatal", async () => {
    const server = await startServer();
    try {
      server.main.sendRaw({ id: "s999", result: {} });
      server.main.sendRaw({ id: 17, error: { code: "internal", message: "x" } });
      await waitUntil("two reports", () => server.main.notificationsOf("error").length === 2 || undefined);
      assert.ok(server.main.notificationsOf("error").every((n) => n.kind === "unknownResponse"));
    } finally {
      await server.close();
    }
  });

  test("numeric ids of any finite size, negative or fractional, are echoed", async () => {
    const server = await startServer();
    try {
      for (const id of [-1, 0, 1.5, 1e300, -1e-300, Number.MAX_SAFE_INTEGER]) {
        const answer = await server.main.rawRequest("server/diagnostics", {}, id);
        assert.equal(answer.id, id);
        assert.ok(answer.result);
      }
      server.main.sendRaw('{"id":1e400,"method":"server/diagnostics","params":{}}');
      const note = await server.main.waitForNotification("error");
      assert.match(note.message, /id must be a string or a finite number/);
    } finally {
      await server.close();
    }
  });

  test("an unknown client notification is reported and ignored", async () => {
    const server = await startServer();
    try {
      server.main.sendRaw({ method: "made/up", params: {} });
      const note = await server.main.waitForNotification("error");
      assert.equal(note.kind, "methodNotFound");
    } finally {
      await server.close();
    }
  });
});
