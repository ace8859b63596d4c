import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { BIN, startServer, waitUntil } from "../support/harness.js";

describe("spec: Ownership, unloading, and shutdown (process)", () => {
  test("stdin EOF answers what was accepted, then exits 0", async () => {
    const server = await startServer();
    for (let i = 0; i < 50; i++) server.main.sendRaw({ id: `last-${i}`, method: "server/diagnostics", params: {} });
    const started = Date.now();
    const exit = await server.close();
    assert.equal(exit.code, 0);
    assert.ok(Date.now() - started < 3000, "exits promptly once nothing is pending");
    for (let i = 0; i < 50; i++) assert.ok(server.main.rawResponses.get(`last-${i}`)?.result, `answer ${i}`);
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal} stops input and exits 0 promptly`, async () => {
      const server = await startServer();
      await server.main.request("server/diagnostics", {});
      const started = Date.now();
      server.kill(signal);
      const exit = await server.waitForExit(5000);
      server.cleanup();
      assert.equal(exit.code, 0);
      assert.ok(Date.now() - started < 3000);
      assert.match(server.stderr, new RegExp(`shutting down: ${signal}`));
      server.assertNoSchemaViolations();
    });
  }

  test("exits by ten seconds even when the client has stopped reading stdout", async () => {
    const home = mkdtempSync(join(tmpdir(), "kc-test-home-"));
    try {
      const child = spawn(process.execPath, [BIN, "app-server"], {
        env: { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, "agent") },
        stdio: ["pipe", "pipe", "ignore"],
      });
      // Never read stdout: its pipe fills and the server's output backs up.
      child.stdout.pause();
      const lines = [JSON.stringify({ id: 0, method: "initialize", params: { clientInfo: { name: "stalled" } } }), '{"method":"initialized","params":{}}'];
      // 4,000 answers of ~250 bytes: far more than a pipe and the reader's buffer hold.
      for (let i = 1; i <= 4000; i++) lines.push(JSON.stringify({ id: i, method: "server/diagnostics", params: {} }));
      child.stdin.write(lines.join("\n") + "\n");
      // The server is up and answering, and this side has stopped reading: its answers now back up in the pipe.
      await waitUntil("stdout to back up", () => child.stdout.readableLength >= child.stdout.readableHighWaterMark || undefined);
      const started = Date.now();
      child.stdin.end();
      const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
      const elapsed = Date.now() - started;
      assert.equal(code, 0);
      assert.ok(elapsed < 10_800, `exited after ${elapsed} ms`);
      assert.ok(elapsed > 5_000, `output could not drain, so the exit waited for the deadline (${elapsed} ms)`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("spec: Limits (64 MiB per stdin line)", () => {
  test("an oversized line is dropped with an error notification, memory stays bounded, and the next request is answered", async () => {
    const server = await startServer();
    try {
      const { readFileSync } = await import("node:fs");
      const status = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))![1]) * 1024;
      await server.main.request("server/diagnostics", {});
      const baseline = status("VmRSS");
      const stdin = server.transport.child.stdin!;
      const chunk = Buffer.alloc(4 * 2 ** 20, 0x61);
      stdin.write('{"id":"huge","method":"server/diagnostics","params":{"pad":"');
      // 256 MiB in one line, written with backpressure so the test itself stays small.
      for (let i = 0; i < 64; i++) {
        if (!stdin.write(chunk)) await new Promise((resolve) => stdin.once("drain", resolve));
      }
      stdin.write('"}}\n{"id":"after","method":"server/diagnostics","params":{}}\n');
      const note = await server.main.waitForNotification("error", (n) => n.kind === "lineTooLong", { timeoutMs: 30_000 });
      assert.match(note.message, /67108864 bytes/);
      const after = await waitUntil("the next answer", () => server.main.rawResponses.get("after"), 30_000);
      assert.ok(after.result);
      assert.equal(server.main.rawResponses.has("huge"), false);
      // Bounded by the limit, not by the line: the 64 MiB held before the line is known to be too long,
      // and as much again of dropped chunks the collector has not freed yet, never the 256 MiB of the line.
      const growth = status("VmHWM") - baseline;
      assert.ok(growth < 2 * 64 * 2 ** 20 + 32 * 2 ** 20, `peak RSS grew by ${Math.round(growth / 2 ** 20)} MiB while skipping a 256 MiB line`);
    } finally {
      await server.close();
    }
  });

  test("a line just under the limit is parsed and answered", async () => {
    const server = await startServer();
    try {
      const pad = "b".repeat(64 * 2 ** 20 - 200);
      server.main.sendRaw(`{"id":"big","method":"server/diagnostics","params":{"pad":"${pad}"}}`);
      const answer = await waitUntil("the big line's answer", () => server.main.rawResponses.get("big"), 30_000);
      assert.equal(answer.error?.code, "invalidParams");
      assert.match(answer.error!.message, /unknown field "pad"/);
      assert.equal(server.main.notificationsOf("error").length, 0);
    } finally {
      await server.close();
    }
  });
});
