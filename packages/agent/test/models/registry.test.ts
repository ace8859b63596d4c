import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ModelRegistry } from "../../src/models/registry.js";
import { ModelError } from "../../src/models/errors.js";
import { readModelsFile } from "../../src/models/models-json.js";

const root = mkdtempSync(join(tmpdir(), "kc-models-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function agentDir(modelsJson?: unknown): string {
  const dir = join(root, `a${n++}`);
  mkdirSync(dir, { recursive: true });
  if (modelsJson !== undefined) writeFileSync(join(dir, "models.json"), typeof modelsJson === "string" ? modelsJson : JSON.stringify(modelsJson));
  return dir;
}

const local = {
  providers: {
    local: {
      baseUrl: "http://127.0.0.1:11434/v1/",
      api: "openai-completions",
      apiKey: "LOCAL_KEY_VAR",
      models: [
        { id: "plain", contextWindow: 32_000, maxTokens: 4_000, cost: { input: 0.5, output: 1 } },
        { id: "thinker", name: "Thinker", reasoning: true },
      ],
    },
  },
};

describe("models.json", () => {
  test("custom providers load with defaults, a trimmed base URL and an env-resolved key", () => {
    const file = readModelsFile(agentDir(local), { LOCAL_KEY_VAR: "from-env" });
    assert.deepEqual(file.warnings, []);
    const [provider] = file.providers;
    assert.equal(provider!.baseUrl, "http://127.0.0.1:11434/v1");
    assert.equal(provider!.apiKey, "from-env");
    assert.equal(provider!.models[0]!.contextWindow, 32_000);
    assert.deepEqual(provider!.models[0]!.cost, { input: 0.5, output: 1, cacheRead: 0, cacheWrite: 0 });
    assert.equal(provider!.models[1]!.name, "Thinker");
    assert.equal(provider!.models[1]!.contextWindow, 128_000);
    assert.equal(readModelsFile(agentDir(local), {}).providers[0]!.apiKey, "LOCAL_KEY_VAR", "a literal key when no such variable exists");
  });

  test("a file that is not JSON is one warning with its line and column", () => {
    const file = readModelsFile(agentDir('{\n  "providers": {\n    oops\n  }\n}'), {});
    assert.equal(file.providers.length, 0);
    assert.equal(file.warnings.length, 1);
    assert.equal(file.warnings[0]!.line, 3);
    assert.equal(file.warnings[0]!.column, 5);
  });

  test("bad entries are warnings naming the field; good ones still load", () => {
    const file = readModelsFile(
      agentDir({
        providers: {
          bad: { baseUrl: "ftp://x", models: [] },
          mixed: { baseUrl: "http://127.0.0.1:1/v1", models: [{ id: "" }, { id: "ok" }, { id: "neg", contextWindow: -5 }, { id: "img", input: ["video"] }] },
        },
      }),
      {},
    );
    assert.deepEqual(
      file.providers.map((p) => [p.name, p.models.map((m) => m.id)]),
      [["mixed", ["ok"]]],
    );
    const messages = file.warnings.map((w) => w.message).join("\n");
    assert.match(messages, /providers\.bad\.baseUrl/);
    assert.match(messages, /providers\.mixed\.models\[0\]\.id/);
    assert.match(messages, /providers\.mixed\.models\[2\]\.contextWindow/);
    assert.match(messages, /providers\.mixed\.models\[3\]\.input/);
  });
});

describe("ModelRegistry", () => {
  test("lists built-in and custom models with thinking levels and availability", async () => {
    const registry = new ModelRegistry(agentDir(local), {});
    const models = await registry.list();
    const plain = models.find((m) => m.provider === "local" && m.id === "plain")!;
    const thinker = models.find((m) => m.id === "thinker")!;
    assert.deepEqual(plain.thinkingLevels, ["off"]);
    assert.ok(thinker.thinkingLevels.includes("high") && thinker.thinkingLevels[0] === "off");
    assert.equal(plain.available, true);
    assert.ok(
      models.some((m) => m.provider === "anthropic"),
      "the built-in catalogue is listed",
    );
    assert.ok(models.filter((m) => m.source === "builtin").every((m) => m.contextWindow > 0 && m.cost.input >= 0));
  });

  test("auth.json keys are stored 0600, used, and removable", async () => {
    const dir = agentDir();
    const registry = new ModelRegistry(dir, {});
    await registry.auth.set("openai", { type: "api_key", key: "sk-test" });
    assert.equal(statSync(join(dir, "auth.json")).mode & 0o777, 0o600);
    assert.equal(await registry.apiKey("openai"), "sk-test");
    const openai = (await registry.list()).find((m) => m.provider === "openai")!;
    assert.equal(openai.available, true);
    await registry.auth.set("openai", undefined);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, "auth.json"), "utf8")), {});
  });

  test("a corrupt auth.json is reported and never overwritten", async () => {
    const dir = agentDir();
    writeFileSync(join(dir, "auth.json"), "{not json");
    const registry = new ModelRegistry(dir, {});
    assert.ok(registry.auth.readAll().problem);
    await assert.rejects(registry.auth.set("openai", { type: "api_key", key: "x" }), /not valid/);
    assert.equal(readFileSync(join(dir, "auth.json"), "utf8"), "{not json");
  });

  test("resolve: requested, else configured, else a model with credentials; clear errors otherwise", async () => {
    const registry = new ModelRegistry(agentDir(local), {});
    assert.equal((await registry.resolve({ provider: "local", id: "thinker" })).id, "thinker");
    assert.equal((await registry.resolve(undefined, { provider: "local", id: "plain" })).id, "plain");
    assert.equal((await registry.resolve()).provider, "local");
    await assert.rejects(registry.resolve({ provider: "local", id: "missing" }), (e: unknown) => e instanceof ModelError && e.code === "modelNotFound");
    const empty = new ModelRegistry(agentDir({ providers: {} }), {});
    await assert.rejects(empty.resolve(), (e: unknown) => e instanceof ModelError && e.code === "noModel");
  });

  test("models.json is re-read when it changes", async () => {
    const dir = agentDir(local);
    const registry = new ModelRegistry(dir, {});
    assert.ok(await registry.find({ provider: "local", id: "plain" }));
    writeFileSync(join(dir, "models.json"), JSON.stringify({ providers: { other: { baseUrl: "http://127.0.0.1:2/v1", apiKey: "k", models: [{ id: "x" }] } } }));
    assert.equal(await registry.find({ provider: "local", id: "plain" }), undefined);
    assert.ok(await registry.find({ provider: "other", id: "x" }));
  });

  test("extension providers shadow and then leave", async () => {
    const registry = new ModelRegistry(agentDir(local), {});
    const base = (await registry.find({ provider: "local", id: "plain" }))!;
    registry.registerProvider("ext-1", {
      name: "local",
      baseUrl: "http://127.0.0.1:3/v1",
      api: "openai-completions",
      apiKey: "e",
      models: [{ ...base, baseUrl: "http://127.0.0.1:3/v1" }],
    });
    assert.equal((await registry.find({ provider: "local", id: "plain" }))!.baseUrl, "http://127.0.0.1:3/v1");
    registry.unregisterProvider("ext-1");
    assert.equal((await registry.find({ provider: "local", id: "plain" }))!.baseUrl, "http://127.0.0.1:11434/v1");
  });
});
