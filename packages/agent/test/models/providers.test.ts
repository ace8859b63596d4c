import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ModelRegistry } from "../../src/models/registry.js";
import { providerFromDefinition } from "../../src/extensions/provider.js";

const root = mkdtempSync(join(tmpdir(), "kc-providers-"));
after(() => rmSync(root, { recursive: true, force: true }));

const model = {
  id: "m",
  name: "m",
  reasoning: false,
  input: ["text"],
  contextWindow: 1000,
  maxTokens: 100,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

describe("ModelRegistry.providers (what account/read calls env)", () => {
  test("each provider once, with whether the environment holds its key", async () => {
    const agentDir = join(root, "agent");
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(
      join(agentDir, "models.json"),
      JSON.stringify({
        providers: {
          "from-env": { baseUrl: "http://127.0.0.1:9/v1", apiKey: "LOCAL_LLM_KEY", models: [model] },
          literal: { baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-literal", models: [model] },
          keyless: { baseUrl: "http://127.0.0.1:9/v1", models: [model] },
        },
      }),
    );
    const env = { LOCAL_LLM_KEY: "sk-local" };
    const registry = new ModelRegistry(agentDir, env);
    registry.registerProvider(
      "ext",
      providerFromDefinition("ext-missing", { baseUrl: "http://127.0.0.1:9", apiKey: "$NOT_SET_ANYWHERE", models: [{ id: "x" }] }, env),
    );
    const providers = await registry.providers();
    const byName = new Map(providers.map((p) => [p.name, p.envKey]));
    assert.equal(byName.size, providers.length, "each provider once");
    assert.equal(byName.get("from-env"), true, "a models.json key named by a set variable");
    assert.equal(byName.get("literal"), false, "a key written in models.json is configuration, not the environment");
    assert.equal(byName.get("keyless"), false);
    assert.equal(byName.get("ext-missing"), false, "a $NAME that is not set");
    assert.ok(byName.has("anthropic") && byName.has("openai"), "the built-in providers");
  });
});
