import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { PROVIDER_KEY_ENV_NAMES, PROVIDER_NON_SECRET_ENV_NAMES } from "@knightcode/system/process/key-env-names";
import { ModelRegistry } from "../../src/models/registry.js";
import { createBashTool } from "../../src/tools/bash.js";
import { childEnvironment, isWithheldEnvName } from "@knightcode/system/process/child-env";
import { tempDir, textOf } from "../tools/support.js";

describe("the environment of child processes", () => {
  test("withholds the server's token and provider keys by name, and the token by value; keeps the rest", () => {
    const base = {
      PATH: "/usr/bin",
      HOME: "/home/me",
      KNIGHTCODE_APP_SERVER_TOKEN: "tok-123",
      LAUNCHER_SECRET: "tok-123",
      OPENAI_API_KEY: "sk-1",
      my_service_api_key: "sk-2",
      ANTHROPIC_OAUTH_TOKEN: "oauth",
      GH_TOKEN: "gh",
      AWS_SECRET_ACCESS_KEY: "aws",
      AWS_PROFILE: "dev",
      CUSTOM_LLM_KEY: "sk-3",
      NPM_CONFIG_CACHE: "/tmp/npm",
      EMPTY: "",
    };
    const env = childEnvironment(base, { withholdNames: ["CUSTOM_LLM_KEY"], withholdValues: ["tok-123"] });
    assert.deepEqual(env, { PATH: "/usr/bin", HOME: "/home/me", AWS_PROFILE: "dev", NPM_CONFIG_CACHE: "/tmp/npm", EMPTY: "" });
  });

  test("passThrough gives back what it names, in any case, and nothing else", () => {
    const base = { OPENAI_API_KEY: "sk-1", GH_TOKEN: "gh", KNIGHTCODE_APP_SERVER_TOKEN: "tok", OTHER_TOKEN: "tok" };
    const env = childEnvironment(base, { withholdValues: ["tok"], passThrough: ["gh_token", "OTHER_TOKEN"] });
    assert.deepEqual(env, { GH_TOKEN: "gh", OTHER_TOKEN: "tok" });
  });

  test("every variable pi-ai reads a credential from is withheld, or listed as no secret", () => {
    const source = readFileSync(join(dirname(fileURLToPath(import.meta.resolve("@mariozechner/pi-ai"))), "env-api-keys.js"), "utf8");
    const read = new Set(source.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? []);
    assert.ok(read.has("OPENAI_API_KEY") && read.has("GITHUB_TOKEN"), "the file still names the variables");
    const known = new Set<string>(PROVIDER_NON_SECRET_ENV_NAMES);
    const unlisted = [...read].filter((name) => !isWithheldEnvName(name) && !known.has(name) && !/^(NODE|FS|PATH|JITI)_/.test(name));
    assert.deepEqual(unlisted, [], "add each to PROVIDER_KEY_ENV_NAMES, or to the names that are no secret");
    for (const name of PROVIDER_KEY_ENV_NAMES) assert.ok(isWithheldEnvName(name));
  });

  test("a tool built without a thread's environment still withholds the keys", async (t) => {
    const dir = await tempDir(t);
    process.env.OPENAI_API_KEY = "sk-from-the-server";
    t.after(() => delete process.env.OPENAI_API_KEY);
    const result = await createBashTool({ cwd: dir }).execute("c", { command: 'echo "key=[$OPENAI_API_KEY] path=[${PATH:+set}]"' });
    assert.equal(textOf(result), "key=[] path=[set]");
  });

  test("the registry names the variables models.json takes keys from", async (t) => {
    const agentDir = await tempDir(t);
    writeFileSync(
      join(agentDir, "models.json"),
      JSON.stringify({
        providers: {
          fromEnv: { baseUrl: "http://127.0.0.1:1/v1", apiKey: "LOCAL_LLM_SECRET", models: [{ id: "m" }] },
          literal: { baseUrl: "http://127.0.0.1:1/v1", apiKey: "sk-literal", models: [{ id: "m" }] },
        },
      }),
    );
    const registry = new ModelRegistry(agentDir, { LOCAL_LLM_SECRET: "sk-local" });
    assert.deepEqual(registry.keyEnvNames(), ["LOCAL_LLM_SECRET"]);
  });
});
