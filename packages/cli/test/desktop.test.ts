import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppServerClient } from "@knightcode/app-server-client";
import { ScriptedModelServer, waitUntil } from "@knightcode/testkit";
import { browserTransport, DesktopProcess, tokenOf } from "./desktop-support.js";

describe("knightcode desktop (docs/desktop.md: Starting it)", () => {
  let model: ScriptedModelServer;
  before(async () => (model = await ScriptedModelServer.start()));
  after(async () => await model.close());

  test("--no-open prints one stdout line with a fresh token in the fragment, serves the page, and a browser-style session runs a turn", async () => {
    const desktop = new DesktopProcess({ model });
    try {
      const url = await desktop.url();
      assert.equal(url.origin, `http://127.0.0.1:${url.port}`);
      assert.equal(url.pathname, "/");
      assert.match(tokenOf(url), /^[0-9a-f]{64}$/);
      const page = await fetch(new URL("/", url));
      assert.match(await page.text(), /desktop test page/);

      const transport = await browserTransport(url);
      assert.equal(transport.protocol, "knightcode");
      const client = new AppServerClient(transport, { requestTimeoutMs: 15_000 });
      await client.initialize({ clientInfo: { name: "desktop-test", version: "0" } });
      const { thread } = await client.request("thread/start", { cwd: desktop.home });
      model.enqueue({ text: ["Hello ", "from the ", "page"] });
      const completed = new Promise<unknown>((resolve) => client.onNotification("turn/completed", resolve));
      const texts: string[] = [];
      client.onNotification("item/completed", (params) => {
        const item = params.item as { type: string; text?: string };
        if (item.type === "agentMessage" && item.text) texts.push(item.text);
      });
      await client.request("turn/start", { threadId: thread.id, text: "Say hello" });
      await completed;
      assert.deepEqual(texts, ["Hello from the page"]);
      await client.close();

      assert.equal(desktop.stdout, `${url.href}\n`, "exactly one line on stdout");
      assert.ok(!desktop.stderr.includes(tokenOf(url)), "the token never reaches stderr");
    } finally {
      await desktop.stop();
    }
  });

  test("the terminal closing stdin does not stop it; SIGTERM exits 0 and leaves no process behind", async () => {
    const desktop = new DesktopProcess();
    try {
      const url = await desktop.url();
      desktop.child.stdin!.end();
      const transport = await browserTransport(url);
      const client = new AppServerClient(transport, { requestTimeoutMs: 15_000 });
      await client.initialize({ clientInfo: { name: "desktop-test", version: "0" } });
      assert.ok((await client.request("server/diagnostics", {})).uptimeMs >= 0, "still serving after stdin closed");
      desktop.child.kill("SIGTERM");
      assert.deepEqual(await desktop.exited(), { code: 0, signal: null });
      await client.closed;
      await waitUntil("no process of the group to be left", () => !desktop.groupAlive());
    } finally {
      await desktop.stop();
    }
  });

  test("SIGINT exits 0 too", async () => {
    const desktop = new DesktopProcess();
    try {
      await desktop.url();
      desktop.child.kill("SIGINT");
      assert.deepEqual(await desktop.exited(), { code: 0, signal: null });
    } finally {
      await desktop.stop();
    }
  });

  test("a browser that cannot be opened is a note on stderr, and the server keeps serving", async () => {
    const bin = mkdtempSync(join(tmpdir(), "kc-no-opener-"));
    const desktop = new DesktopProcess({ args: [], env: { PATH: bin } });
    try {
      const url = await desktop.url();
      await waitUntil("the note", () => /could not open a browser/.test(desktop.stderr));
      assert.equal((await fetch(new URL("/", url))).status, 200);
      assert.equal(desktop.exit, undefined);
    } finally {
      await desktop.stop();
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test("a port in use exits 2 with a clear message", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const desktop = new DesktopProcess({ args: ["--no-open", "--port", String(port)] });
    try {
      assert.deepEqual(await desktop.exited(), { code: 2, signal: null });
      assert.match(desktop.stderr, new RegExp(`port ${port} on 127.0.0.1 is in use; choose another with --port`));
      assert.equal(desktop.stdout, "");
    } finally {
      await desktop.stop();
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  test("a token from KNIGHTCODE_APP_SERVER_TOKEN is kept, so a restarted server accepts the open page; a wrong one is refused", async () => {
    const token = "desktop-env-token-0123456789abcdef0123456789";
    const desktop = new DesktopProcess({ env: { KNIGHTCODE_APP_SERVER_TOKEN: token } });
    try {
      const url = await desktop.url();
      assert.equal(tokenOf(url), token);
      (await browserTransport(url)).close();
      await assert.rejects(browserTransport(url, { token: token.replace(/.$/, "x") }), /HTTP 401/);
      await assert.rejects(browserTransport(url, { origin: "http://evil.test" }), /HTTP 403/);
      assert.ok(!desktop.stderr.includes(token));
    } finally {
      await desktop.stop();
    }
  });

  test("--ready-file gets the page URL and the pid, without the token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-desktop-ready-"));
    const file = join(dir, "ready.json");
    const desktop = new DesktopProcess({ args: ["--no-open", "--ready-file", file] });
    try {
      const url = await desktop.url();
      const ready = await waitUntil("the ready file", () => {
        try {
          return JSON.parse(readFileSync(file, "utf8")) as { url: string; pid: number };
        } catch {
          return undefined;
        }
      });
      assert.deepEqual(ready, { url: `${url.origin}/`, pid: desktop.child.pid });
    } finally {
      await desktop.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a page folder without index.html is a clear error, exit 2", async () => {
    const empty = mkdtempSync(join(tmpdir(), "kc-desktop-empty-"));
    const desktop = new DesktopProcess({ env: { KNIGHTCODE_DESKTOP_PAGE: empty } });
    try {
      assert.deepEqual(await desktop.exited(), { code: 2, signal: null });
      assert.match(desktop.stderr, /has no index\.html/);
    } finally {
      await desktop.stop();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
