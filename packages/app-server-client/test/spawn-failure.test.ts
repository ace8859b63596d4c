import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { AppServerClient, ClientError, SpawnedServerTransport } from "../src/index.js";

test("a server that cannot be spawned rejects initialize with the cause, and exited settles with it", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "kc-spawn-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, "no-such-knightcode");
  const transport = new SpawnedServerTransport({ command: missing, args: ["app-server"], stderr: "ignore" });
  const client = new AppServerClient(transport);
  const error = await client.initialize({ clientInfo: { name: "test", version: "0" } }).catch((e: unknown) => e);
  assert.ok(error instanceof ClientError, String(error));
  assert.equal(error.kind, "closed");
  assert.match(error.message, /ENOENT/);
  assert.equal((error.cause as NodeJS.ErrnoException | undefined)?.code, "ENOENT");
  const exited = await transport.exited;
  assert.equal(exited.code, null);
  assert.equal((exited.error as NodeJS.ErrnoException | undefined)?.code, "ENOENT");
});

test("a server that starts and exits still settles exited with its code, and no error", async () => {
  const transport = new SpawnedServerTransport({ command: process.execPath, args: ["-e", "process.exit(3)"], stderr: "ignore" });
  const client = new AppServerClient(transport);
  const error = await client.initialize({ clientInfo: { name: "test", version: "0" } }).catch((e: unknown) => e);
  assert.ok(error instanceof ClientError);
  assert.match(error.message, /code 3/);
  const exited = await transport.exited;
  assert.equal(exited.code, 3);
  assert.equal(exited.error, undefined);
});
