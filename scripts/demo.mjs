#!/usr/bin/env node
// Starts `knightcode app-server` in a throwaway home, drives it through the
// handshake and a diagnostics request with the in-repo client, and prints
// every message that crossed the wire.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppServerClient } from "@knightcode/app-server-client";

const bin = fileURLToPath(new URL("../packages/cli/bin/knightcode.js", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "knightcode-demo-"));
const show = (arrow) => (message) => console.log(`${arrow} ${JSON.stringify(message)}`);
const client = AppServerClient.spawn({
  command: process.execPath,
  args: [bin, "app-server"],
  env: { ...process.env, HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, "agent") },
  stderr: "inherit",
  requestTimeoutMs: 10_000,
  tap: { outgoing: show("->"), incoming: show("<-") },
});
try {
  await client.initialize({ clientInfo: { name: "knightcode-demo", version: "1" } });
  await client.request("server/diagnostics", {});
} finally {
  await client.close();
  rmSync(home, { recursive: true, force: true });
}
