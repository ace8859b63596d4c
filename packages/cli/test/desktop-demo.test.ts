import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { AppServerClient } from "@knightcode/app-server-client";
import { waitUntil } from "@knightcode/testkit";
import { browserTransport } from "./desktop-support.js";

const DEMO = fileURLToPath(new URL("../../../../scripts/desktop-demo.mjs", import.meta.url));

test("npm run desktop:demo: the scripted model reads a file when asked, real providers stay listed, and Ctrl-C cleans up", async () => {
  const home = mkdtempSync(join(tmpdir(), "kc-desktop-demo-test-"));
  const page = join(home, "page");
  mkdirSync(page);
  writeFileSync(join(page, "index.html"), "<!doctype html><title>demo test page</title>");
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, KNIGHTCODE_DESKTOP_PAGE: page, OPENAI_API_KEY: "sk-demo-test-not-a-real-key" };
  delete env.KNIGHTCODE_APP_SERVER_TOKEN;
  delete env.KNIGHTCODE_CODING_AGENT_DIR;
  const demo = spawn(process.execPath, [DEMO, "--no-open"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let exit: { code: number | null } | undefined;
  demo.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  demo.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  demo.on("exit", (code) => (exit = { code }));
  try {
    const url = new URL(await waitUntil("the URL", () => stdout.match(/^(http:\S+)\n/)?.[1], 20_000));
    const project = await waitUntil("the project path", () => stderr.match(/desktop demo: project (\S+),/)?.[1]);
    const client = new AppServerClient(await browserTransport(url), { requestTimeoutMs: 15_000 });
    await client.initialize({ clientInfo: { name: "desktop-demo-test", version: "0" } });
    const { models } = await client.request("model/list", {});
    assert.ok(models.some((m) => m.provider === "demo" && m.id === "demo-model" && m.available));
    assert.ok(
      models.some((m) => m.provider === "openai" && m.available),
      "a provider whose key is in the environment keeps its models",
    );

    const { thread } = await client.request("thread/start", { cwd: project });
    const items: { type: string; name?: string; status?: string; text?: string }[] = [];
    client.onNotification("item/completed", (params) => void items.push(params.item as (typeof items)[number]));
    const completed = new Promise((resolve) => client.onNotification("turn/completed", resolve));
    await client.request("turn/start", { threadId: thread.id, text: "What is in README.md?" });
    await completed;
    assert.ok(
      items.some((i) => i.type === "toolCall" && i.name === "read" && i.status === "completed"),
      JSON.stringify(items),
    );
    assert.match(items.at(-1)?.text ?? "", /I read it: .*"# Greeter"/);
    await client.close();

    demo.kill("SIGINT");
    assert.deepEqual(await waitUntil("the demo to exit", () => exit, 15_000), { code: 0 });
    assert.equal(existsSync(project), false, "the temporary project is removed");
  } finally {
    if (exit === undefined) demo.kill("SIGKILL");
    rmSync(home, { recursive: true, force: true });
  }
});
