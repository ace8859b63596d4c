import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { keyEnvHint } from "@knightcode/system/process/key-env-names";
import { readModelsFile } from "../../src/models/models-json.js";
import { ModelRegistry } from "../../src/models/registry.js";

const root = mkdtempSync(join(tmpdir(), "kc-model-warnings-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function agentDir(files: Record<string, string> = {}): string {
  const dir = join(root, `a${n++}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const keyless = JSON.stringify({ providers: { local: { baseUrl: "http://127.0.0.1:1/v1", models: [{ id: "m" }] } } });

describe("configuration warnings", () => {
  test("a keyless custom provider warns, and each warning is logged once however often it is asked for", () => {
    const logged: string[] = [];
    const registry = new ModelRegistry(agentDir({ "models.json": keyless }), {}, { log: (line) => logged.push(line) });
    const first = registry.configWarnings();
    assert.equal(first.length, 1);
    assert.match(first[0]!.message, /^models\.json: provider "local" has no "apiKey"/);
    assert.deepEqual(registry.configWarnings(), first);
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /models\.json\)$/);
  });

  test("a key from auth.json or the named environment variable silences it", () => {
    const dir = agentDir({ "models.json": keyless, "auth.json": JSON.stringify({ local: { type: "api_key", key: "k" } }) });
    assert.deepEqual(new ModelRegistry(dir, {}).configWarnings(), []);
    const named = JSON.stringify({ providers: { local: { baseUrl: "http://127.0.0.1:1/v1", apiKey: "LOCAL_KEY", models: [] } } });
    assert.deepEqual(new ModelRegistry(agentDir({ "models.json": named }), { LOCAL_KEY: "x" }).configWarnings(), []);
  });

  test("auth.json: a parse error has line and column, a wrong entry is named; neither quotes the file", () => {
    const broken = new ModelRegistry(agentDir({ "auth.json": '{\n  "openai": {"type": "api_key", "key": "sk-hidden"\n' }), {}).configWarnings();
    assert.equal(broken.length, 1);
    assert.equal(broken[0]!.line, 3);
    assert.equal(typeof broken[0]!.column, "number");
    const wrong = new ModelRegistry(agentDir({ "auth.json": JSON.stringify({ a: { type: "api_key", key: 5 }, b: "sk-hidden" }) }), {}).configWarnings();
    assert.deepEqual(
      wrong.map((w) => w.message.match(/"(\w)" is not a credential/)?.[1]),
      ["a", "b"],
    );
    assert.doesNotMatch(JSON.stringify([broken, wrong]), /sk-hidden/);
  });
});

test("the variable named for a built-in provider's key is the one pi-ai reads", async () => {
  const ai = await import("@mariozechner/pi-ai");
  const saved = { ...process.env };
  try {
    for (const name of Object.keys(process.env)) if (/_API_KEY$|_TOKEN$|^AWS_|^GOOGLE_/.test(name)) delete process.env[name];
    for (const provider of ai.getProviders()) {
      const variable = keyEnvHint(provider);
      if (variable === undefined) {
        assert.equal(ai.getEnvApiKey(provider), undefined, provider);
        continue;
      }
      assert.equal(ai.getEnvApiKey(provider), undefined, provider);
      process.env[variable] = `key-of-${provider}`;
      // Bedrock answers a marker, not the value: it signs requests with AWS credentials.
      assert.ok([`key-of-${provider}`, "<authenticated>"].includes(ai.getEnvApiKey(provider) ?? ""), `${provider}: ${variable}`);
      delete process.env[variable];
    }
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
  assert.equal(keyEnvHint("constructor"), "CONSTRUCTOR_API_KEY");
});

test("docs/models.md: every models.json example loads without a warning", () => {
  const doc = readFileSync(fileURLToPath(new URL("../../../../../docs/models.md", import.meta.url)), "utf8");
  const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((text) => text.includes('"providers"'));
  assert.equal(blocks.length, 2);
  for (const text of blocks) {
    const dir = agentDir({ "models.json": text });
    const file = readModelsFile(dir, {});
    assert.deepEqual(file.warnings, []);
    assert.equal(file.providers.length, 1);
    assert.equal(file.providers[0]!.models.length, 1);
  }
});
