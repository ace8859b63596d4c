import assert from "node:assert/strict";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import type { ClientRequestResult } from "@knightcode/app-server-protocol";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";

// Setting up a model: a models.json or auth.json that cannot be used warns
// (source "models", with where) on thread/start and once in the log;
// model/list says why a model is unavailable and takes a filter; a
// provider that is down is named by its base URL, never by its key.

type Warning = ClientRequestResult<"thread/start">["warnings"][number];

let model: ScriptedModelServer;
let server: TestServer;

/** The server's environment without any provider key of the machine's, and one of ours for openai only where asked. */
function providerEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const name of Object.keys(process.env)) if (/_API_KEY$|_TOKEN$|^AWS_|^GOOGLE_/.test(name)) env[name] = undefined;
  return { ...env, ...extra };
}

/** Replaces a file at once (a new inode), so a reader that caches by stamp sees the change. */
function put(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

const modelsPath = () => join(server.agentDir, "models.json");
const authPath = () => join(server.agentDir, "auth.json");

/** The warning a thread/start gives when no model can run; the file's own warnings are told apart from it. */
const NO_USABLE_MODEL = /^No model is usable yet: no provider has a key/;

async function startWarnings(): Promise<Warning[]> {
  const started = await server.main.request("thread/start", { cwd: server.project() });
  return started.warnings.filter((warning) => warning.source === "models" && !NO_USABLE_MODEL.test(warning.message));
}

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model, env: providerEnv() });
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
});

describe("models.json and auth.json mistakes are warnings", () => {
  test("a valid models.json and no auth.json give no models warning", async () => {
    put(modelsPath(), JSON.stringify(model.modelsJson()));
    rmSync(authPath(), { force: true });
    assert.deepEqual(await startWarnings(), []);
  });

  test("models.json that is not JSON: path, line and column, on every thread/start and once in the log", async () => {
    put(modelsPath(), '{\n  "providers": {\n    "local": { "baseUrl": "http://127.0.0.1:1/v1", }\n  }\n}\n');
    const [first, ...rest] = await startWarnings();
    assert.deepEqual(rest, []);
    assert.equal(first!.source, "models");
    assert.equal(first!.path, modelsPath());
    assert.match(first!.message, /models\.json is not valid JSON/);
    assert.equal(first!.line, 3);
    assert.ok(first!.column! > 40, `column ${first!.column}`);
    assert.deepEqual(await startWarnings(), [first], "a second thread/start warns again");
    await server.waitForStderr(/models\.json is not valid JSON.*models\.json:3:/);
    assert.equal(server.stderr.match(/models\.json is not valid JSON/g)!.length, 1, "logged once");
  });

  test("an unknown api names the provider and the accepted values; the other providers still load", async () => {
    const file = model.modelsJson() as { providers: Record<string, unknown> };
    put(
      modelsPath(),
      JSON.stringify({
        providers: { ...file.providers, typo: { baseUrl: "http://127.0.0.1:1/v1", api: "openai-completion", apiKey: "x", models: [{ id: "m" }] } },
      }),
    );
    const warnings = await startWarnings();
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.path, modelsPath());
    assert.match(warnings[0]!.message, /providers\.typo\.api must be one of openai-completions/);
    const scripted = await server.main.request("model/list", { provider: "scripted" });
    assert.equal(scripted.models.length, 2);
    assert.deepEqual(await server.main.request("model/list", { provider: "typo" }), { models: [] });
  });

  test("a value of the wrong type names its place", async () => {
    put(
      modelsPath(),
      JSON.stringify({ providers: { local: { baseUrl: "http://127.0.0.1:1/v1", apiKey: "none", models: [{ id: "a", contextWindow: "big" }] } } }),
    );
    const warnings = await startWarnings();
    assert.deepEqual(
      warnings.map((w) => w.message),
      ["models.json: providers.local.models[0].contextWindow must be a positive integer"],
    );
  });

  test("a custom provider without apiKey warns, and its models list as unavailable with the reason", async () => {
    const file = model.modelsJson() as { providers: Record<string, Record<string, unknown>> };
    delete file.providers.scripted!.apiKey;
    put(modelsPath(), JSON.stringify(file));
    const warnings = await startWarnings();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!.message, /provider "scripted" has no "apiKey"/);
    const { models } = await server.main.request("model/list", { provider: "scripted" });
    assert.equal(models.length, 2);
    for (const summary of models) {
      assert.equal(summary.available, false);
      assert.equal(summary.unavailableReason?.kind, "noCredentials");
      assert.match(summary.unavailableReason!.message, /"apiKey"/);
    }
    const started = await server.main.request("thread/start", { cwd: server.project() });
    assert.equal(started.thread.model, null);
    assert.ok(
      started.warnings.some((w) => w.source === "models" && NO_USABLE_MODEL.test(w.message)),
      `thread/start says no model can run before turn/start refuses: ${JSON.stringify(started.warnings)}`,
    );
    const refused = await server.main.rawRequest("turn/start", { threadId: started.thread.id, text: "hello" });
    assert.equal(refused.error?.code, "invalidParams");
    assert.equal((refused.error?.data as { reason?: string } | undefined)?.reason, "noModel");
  });

  test("auth.json that is not JSON warns with line and column, never quoting it, and unavailable models say so", async () => {
    put(modelsPath(), JSON.stringify(model.modelsJson()));
    put(authPath(), '{\n  "openai": { "type": "api_key", "key": "sk-secret-in-broken-file" \n}\n');
    const warnings = await startWarnings();
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.path, authPath());
    assert.equal(warnings[0]!.line, 4);
    assert.ok(warnings[0]!.column !== undefined);
    assert.doesNotMatch(JSON.stringify(warnings), /sk-secret/);
    const { models } = await server.main.request("model/list", { provider: "openai" });
    assert.ok(models.length > 0);
    for (const summary of models) assert.equal(summary.unavailableReason?.kind, "authFileError");
    await server.waitForStderr(/auth\.json is not valid JSON/);
    assert.doesNotMatch(server.stderr, /sk-secret/);
  });

  test("an auth.json entry that is no credential is named, not quoted", async () => {
    put(authPath(), JSON.stringify({ openai: { type: "api-key", key: "sk-secret-wrong-type" } }));
    const warnings = await startWarnings();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!.message, /the entry for "openai" is not a credential/);
    assert.doesNotMatch(JSON.stringify(warnings), /sk-secret/);
    rmSync(authPath());
  });
});

describe("docs/models.md", () => {
  test("the local example, pointed at the scripted model, is the default model of the settings example and runs a turn", async () => {
    const doc = readFileSync(fileURLToPath(new URL("../../../../../docs/models.md", import.meta.url)), "utf8");
    const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const example = JSON.parse(blocks.find((text) => text.includes('"ollama"'))!) as { providers: { ollama: { baseUrl: string } } };
    example.providers.ollama.baseUrl = model.baseUrl;
    put(modelsPath(), JSON.stringify(example));
    const settings = blocks.find((text) => text.includes('"defaultModel"'))!;
    put(join(server.agentDir, "settings.json"), settings);
    try {
      const { thread, warnings } = await server.main.request("thread/start", { cwd: server.project() });
      assert.deepEqual(warnings, []);
      assert.deepEqual(thread.model, { provider: "ollama", id: "qwen2.5-coder:7b" });
      const listed = await server.main.request("model/list", { provider: "ollama" });
      assert.deepEqual(
        listed.models.map((m) => [m.id, m.available]),
        [["qwen2.5-coder:7b", true]],
      );
      model.enqueue({ text: "hello from the local model" });
      const mark = server.main.notifications.length;
      await server.main.request("turn/start", { threadId: thread.id, text: "hi" });
      const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
      assert.equal(done.turn.status, "completed");
      const requests = await model.waitForRequests(1);
      assert.ok(requests.some((request) => request.body.model === "qwen2.5-coder:7b"));
    } finally {
      rmSync(join(server.agentDir, "settings.json"), { force: true });
    }
  });
});

describe("model/list", () => {
  test("without a filter every model; available and provider narrow it; unavailable ones say why", async () => {
    put(modelsPath(), JSON.stringify(model.modelsJson()));
    const all = (await server.main.request("model/list", {})).models;
    const available = (await server.main.request("model/list", { available: true })).models;
    const unavailable = (await server.main.request("model/list", { available: false })).models;
    assert.equal(available.length + unavailable.length, all.length);
    assert.deepEqual(
      available.map((m) => `${m.provider}/${m.id}`),
      ["scripted/scripted-model", "scripted/scripted-reasoner"],
    );
    for (const summary of available) assert.equal(summary.unavailableReason, undefined);
    for (const summary of unavailable) assert.equal(summary.unavailableReason?.kind, "noCredentials");
    const openai = unavailable.find((m) => m.provider === "openai")!;
    assert.match(openai.unavailableReason!.message, /OPENAI_API_KEY/);
    assert.match(openai.unavailableReason!.message, /auth\.json/);
    const google = unavailable.find((m) => m.provider === "google")!;
    assert.match(google.unavailableReason!.message, /GEMINI_API_KEY/);
    const byProvider = (await server.main.request("model/list", { provider: "openai", available: false })).models;
    assert.ok(byProvider.length > 0 && byProvider.every((m) => m.provider === "openai"));
  });

  test("a filter of the wrong type is invalidParams", async () => {
    const wrong = await server.main.rawRequest("model/list", { available: "yes" });
    assert.equal(wrong.error?.code, "invalidParams");
    const unknown = await server.main.rawRequest("model/list", { vendor: "openai" });
    assert.equal(unknown.error?.code, "invalidParams");
  });
});

describe("errors name what to fix", () => {
  test("turn/start (plain and /plan) and thread/archive during a turn are turnInProgress with data.turnId", async () => {
    put(modelsPath(), JSON.stringify(model.modelsJson()));
    const { thread } = await server.main.request("thread/start", { cwd: server.project() });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    model.enqueue({ text: ["one ", "two"], pauseAfter: 1, gate });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "slow" });
    const started = await server.main.waitForNotification("turn/started", (p) => p.threadId === thread.id, { since: mark });
    const plain = await server.main.rawRequest("turn/start", { threadId: thread.id, text: "another" });
    assert.equal(plain.error?.code, "turnInProgress");
    assert.deepEqual(plain.error?.data, { turnId: started.turn.id });
    const during = await server.main.rawRequest("turn/start", { threadId: thread.id, text: "/plan do it" });
    assert.equal(during.error?.code, "turnInProgress");
    assert.deepEqual(during.error?.data, { turnId: started.turn.id });
    const archive = await server.main.rawRequest("thread/archive", { threadId: thread.id });
    assert.equal(archive.error?.code, "turnInProgress");
    assert.deepEqual(archive.error?.data, { turnId: started.turn.id });
    release();
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
  });

  test("a provider that is down: the turn's error names its base URL, never its key", async () => {
    const port = await closedPort();
    const baseUrl = `http://127.0.0.1:${port}/v1`;
    const key = "sk-down-provider-7c1f0e";
    put(modelsPath(), JSON.stringify({ providers: { down: { baseUrl, api: "openai-completions", apiKey: key, models: [{ id: "down-model" }] } } }));
    put(join(server.agentDir, "settings.json"), JSON.stringify({ retry: { provider: { enabled: false } } }));
    try {
      const { thread } = await server.main.request("thread/start", { cwd: server.project(), model: { provider: "down", id: "down-model" } });
      const mark = server.main.notifications.length;
      await server.main.request("turn/start", { threadId: thread.id, text: "hello" });
      const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
      assert.equal(done.turn.status, "failed");
      assert.equal(done.turn.error?.kind, "network");
      assert.match(done.turn.error!.message, new RegExp(`at ${baseUrl.replace(/[.]/g, "\\.")}\\b`));
      assert.doesNotMatch(JSON.stringify(server.main.notifications), new RegExp(key));
    } finally {
      rmSync(join(server.agentDir, "settings.json"), { force: true });
    }
  });
});

/** A 127.0.0.1 port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("spec: a model that does not exist", () => {
  test("thread/start and thread/settings/update answer invalidParams with data.reason modelNotFound; a start with a usable model warns of nothing", async () => {
    put(modelsPath(), JSON.stringify(model.modelsJson()));
    const cwd = server.project();
    const unknown = { provider: "scripted", id: "no-such-model" };
    const refused = await server.main.rawRequest("thread/start", { cwd, model: unknown });
    assert.equal(refused.error?.code, "invalidParams");
    assert.deepEqual(refused.error?.data, { reason: "modelNotFound" });
    const { thread, warnings } = await server.main.request("thread/start", { cwd });
    assert.notEqual(thread.model, null);
    assert.equal(
      warnings.some((w) => NO_USABLE_MODEL.test(w.message)),
      false,
    );
    const update = await server.main.rawRequest("thread/settings/update", { threadId: thread.id, model: unknown });
    assert.equal(update.error?.code, "invalidParams");
    assert.deepEqual(update.error?.data, { reason: "modelNotFound" });
  });
});
