import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import WebSocket from "ws";
import { AppServerClient } from "@knightcode/app-server-client";
import { NO_OTHER_USER, otherUser, ScriptedModelServer, waitUntil } from "@knightcode/testkit";
import { browserTransport, DesktopProcess } from "./desktop-support.js";

// Issue 27, door 6: the token never appears on any process's command line or in a file others can read.
const TOKEN = "desktop-opener-token-0123456789abcdef0123456789";

/** A stand-in xdg-open on PATH that records its arguments and environment, as a browser's launch would see them. */
function fakeOpener(): { bin: string; argv: () => string[] | undefined; env: () => string | undefined } {
  const bin = mkdtempSync(join(tmpdir(), "kc-opener-"));
  const record = join(bin, "opened");
  writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nenv > "${record}.env"\nprintf '%s\\n' "$@" > "${record}.tmp" && mv "${record}.tmp" "${record}"\n`);
  chmodSync(join(bin, "xdg-open"), 0o755);
  const read = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : undefined);
  return { bin, argv: () => read(record)?.split("\n").slice(0, -1), env: () => read(`${record}.env`) };
}

/** Every process command line this user can read, joined. */
function allCommandLines(): string {
  const lines: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " "));
    } catch {
      // Gone meanwhile.
    }
  }
  return lines.join("\n");
}

/** What the launcher page carries: where it sends the browser, and the challenge and answer it checks first. */
function launcherParts(html: string): { page: string; challenge: string; expected: string } {
  const challenge = html.match(/"(knightcode\.challenge\.[A-Za-z0-9_-]{43})"/)?.[1];
  const expected = html.match(/if \(proof === "([A-Za-z0-9_-]{43})"\)/)?.[1];
  const page = html.match(/location\.replace\("([^"]+)"\)/)?.[1];
  assert.ok(challenge && expected && page, html);
  return { page, challenge, expected };
}

describe("door 6: knightcode desktop opens the browser without putting the token where other users see it", () => {
  test("the opener gets a file:// launcher, 0600 in a 0700 folder of ours; no command line or environment of a child carries the token", async () => {
    const opener = fakeOpener();
    const desktop = new DesktopProcess({ args: [], env: { PATH: `${opener.bin}:${process.env.PATH}`, KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
    try {
      const printed = await desktop.url();
      const argv = await waitUntil("the stand-in xdg-open to record its arguments", opener.argv);
      assert.equal(argv.length, 1, argv.join(" "));
      assert.ok(!argv[0]!.includes(TOKEN), `the opener's command line carries the token: ${argv[0]}`);
      assert.match(argv[0]!, /^file:\/\/\//);
      const env = await waitUntil("the stand-in xdg-open to record its environment", opener.env);
      assert.ok(!env.includes(TOKEN), "the opener's environment carries the token");
      assert.ok(!allCommandLines().includes(TOKEN), "no command line on the machine carries the token");

      const launcher = fileURLToPath(argv[0]!);
      const file = lstatSync(launcher);
      const folder = lstatSync(dirname(launcher));
      assert.ok(file.isFile());
      assert.equal(file.mode & 0o777, 0o600);
      assert.equal(file.uid, process.getuid!());
      assert.ok(folder.isDirectory());
      assert.equal(folder.mode & 0o777, 0o700);
      assert.equal(folder.uid, process.getuid!());

      // The launcher hands the browser the page the server printed, token in the fragment, once the listener proved itself.
      const parts = launcherParts(readFileSync(launcher, "utf8"));
      assert.equal(parts.page, printed.href);
      const socket = new WebSocket(`ws://${printed.host}/`, ["knightcode", parts.challenge], { origin: "null" });
      const proof = await new Promise<string>((resolve, reject) => {
        socket.once("message", (data) => resolve((JSON.parse(data.toString()) as { proof: string }).proof));
        socket.once("error", reject);
      });
      assert.equal(proof, parts.expected, "the listener answers the launcher with the proof it expects");
      await waitUntil("the launcher to be removed once used", () => !existsSync(dirname(launcher)) || undefined);

      const client = new AppServerClient(await browserTransport(new URL(parts.page)), { requestTimeoutMs: 15_000 });
      await client.initialize({ clientInfo: { name: "opener-test", version: "0" } });
      await client.close();
    } finally {
      await desktop.stop();
      rmSync(opener.bin, { recursive: true, force: true });
    }
  });

  test("another user scanning every command line gets nothing, and can neither read the launcher nor list its folder", { skip: NO_OTHER_USER }, async () => {
    const user = otherUser()!;
    const opener = fakeOpener();
    const desktop = new DesktopProcess({ args: [], env: { PATH: `${opener.bin}:${process.env.PATH}`, KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
    try {
      await desktop.url();
      const launcher = fileURLToPath((await waitUntil("the opener to run", opener.argv))[0]!);
      const scan = await user.run("sh", ["-c", "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '; ps -eo args 2>/dev/null"]);
      assert.ok(scan.stdout.length > 0, "the scan read command lines");
      assert.ok(!scan.stdout.includes(TOKEN), "the token is on a command line another user can read");
      assert.notEqual((await user.run("cat", [launcher])).code, 0, "another user read the launcher");
      assert.notEqual((await user.run("ls", [dirname(launcher)])).code, 0, "another user listed the launcher's folder");
    } finally {
      await desktop.stop();
      rmSync(opener.bin, { recursive: true, force: true });
    }
  });

  test("the model's read tool refuses the launcher like the token file, and the model never sees the token", async () => {
    const model = await ScriptedModelServer.start();
    const opener = fakeOpener();
    const desktop = new DesktopProcess({ args: [], model, env: { PATH: `${opener.bin}:${process.env.PATH}`, KNIGHTCODE_APP_SERVER_TOKEN: TOKEN } });
    try {
      const url = await desktop.url();
      const launcher = fileURLToPath((await waitUntil("the opener to run", opener.argv))[0]!);
      const client = new AppServerClient(await browserTransport(url), { requestTimeoutMs: 15_000 });
      await client.initialize({ clientInfo: { name: "opener-test", version: "0" } });
      const { thread } = await client.request("thread/start", { cwd: desktop.home, approvalMode: "ask" });
      model.enqueue({ toolCalls: [{ id: "call_launcher", name: "read", arguments: { path: launcher } }] }, { text: "done" });
      const outputs: string[] = [];
      client.onNotification("item/completed", ({ item }) => {
        const call = item as { type: string; status?: string; output?: unknown };
        if (call.type === "toolCall") outputs.push(`${call.status}: ${JSON.stringify(call.output)}`);
      });
      const run = await client.runTurn(thread.id, "read the launcher");
      assert.equal((await run.completed).status, "completed");
      assert.equal(outputs.length, 1);
      assert.match(outputs[0]!, /^failed: .*token/s);
      assert.ok(!JSON.stringify(model.requests).includes(TOKEN), "the token reached the model");
      await client.close();
    } finally {
      await desktop.stop();
      await model.close();
      rmSync(opener.bin, { recursive: true, force: true });
    }
  });

  test("the launcher goes when the server stops, used or not", async () => {
    const opener = fakeOpener();
    const desktop = new DesktopProcess({ args: [], env: { PATH: `${opener.bin}:${process.env.PATH}` } });
    try {
      await desktop.url();
      const launcher = fileURLToPath((await waitUntil("the opener to run", opener.argv))[0]!);
      assert.ok(existsSync(launcher));
      desktop.child.kill("SIGTERM");
      await desktop.exited();
      assert.ok(!existsSync(dirname(launcher)), "the launcher's folder is gone");
    } finally {
      await desktop.stop();
      rmSync(opener.bin, { recursive: true, force: true });
    }
  });

  test("a launcher's folder that a killed desktop left goes when the next one starts; a live one's and others' stay", async () => {
    const opener = fakeOpener();
    // A runtime folder of the test's own (0700, as a session's is), so the launchers go there and nothing else is touched.
    const runtime = mkdtempSync(join(tmpdir(), "kc-runtime-"));
    // A pid no process has any longer: one that just exited.
    const deadPid = spawnSync("true").pid!;
    const left = join(runtime, `knightcode-desktop-${deadPid}-AbC123`);
    const live = join(runtime, `knightcode-desktop-${process.pid}-AbC123`);
    const other = join(runtime, "knightcode-desktop-notapid");
    for (const folder of [left, live, other]) {
      mkdirSync(folder, { mode: 0o700 });
      writeFileSync(join(folder, "open.html"), "an old token");
    }
    const desktop = new DesktopProcess({ args: [], env: { PATH: `${opener.bin}:${process.env.PATH}`, XDG_RUNTIME_DIR: runtime } });
    try {
      const launcher = fileURLToPath((await waitUntil("the opener to run", opener.argv))[0]!);
      assert.equal(dirname(dirname(launcher)), runtime);
      assert.match(dirname(launcher), new RegExp(`/knightcode-desktop-${desktop.child.pid}-[A-Za-z0-9]{6}$`), "named for its process");
      await waitUntil("the folder of the killed desktop to go", () => !existsSync(left));
      assert.ok(existsSync(live) && existsSync(other), "a live process's folder and one not named so stay");
    } finally {
      await desktop.stop();
      rmSync(opener.bin, { recursive: true, force: true });
      rmSync(runtime, { recursive: true, force: true });
    }
  });
});
