import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { maskSecret } from "../../src/tools/managed-tools.js";
import { readToolSettings, ToolSettingsError, writeToolSetting, type WriteToolSettingOptions } from "../../src/tools/tool-settings.js";
import { readToolsFile, toolEnabled } from "../../src/tools/tools-json.js";

const root = mkdtempSync(join(tmpdir(), "kc-tool-settings-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function agentDir(content?: unknown): string {
  const dir = join(root, `agent-${n++}`);
  mkdirSync(dir, { recursive: true });
  if (content !== undefined) writeFileSync(join(dir, "tools.json"), typeof content === "string" ? content : JSON.stringify(content), { mode: 0o644 });
  return dir;
}

const fileOf = (dir: string) => JSON.parse(readFileSync(join(dir, "tools.json"), "utf8")) as Record<string, unknown>;
const write = (dir: string, name: string, key: string, value: WriteToolSettingOptions["value"]) => writeToolSetting({ agentDir: dir, name, key, value });

async function refused(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ToolSettingsError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  });
}

describe("masking", () => {
  test("a secret shows four bullets and its last four characters; four or fewer show none", () => {
    assert.equal(maskSecret("sk-live-0123456789abcd"), "••••abcd");
    assert.equal(maskSecret("abcde"), "••••bcde");
    assert.equal(maskSecret("abcd"), "••••");
    assert.equal(maskSecret("a"), "••••");
    assert.equal(maskSecret(""), "••••");
    // Characters, not UTF-16 units: an emoji is not cut in half.
    assert.equal(maskSecret("key-😀😀😀😀x"), "••••😀😀😀x");
  });
});

describe("tool/settings read", () => {
  test("without a file every entry is at its default: websearch and the classifier gate are off, with no settings", () => {
    assert.deepEqual(readToolSettings(agentDir()), [
      { name: "websearch", enabled: false, settings: {} },
      { name: "classifiers.gate", enabled: false, settings: {} },
    ]);
  });

  test("settings show as text, keys ending in Key masked; the gate's model as provider/id and its timeout as digits", () => {
    const dir = agentDir({
      tools: { websearch: { enabled: true, provider: "tavily", tavilyKey: "tvly-secret-value-9876", braveKey: "abc", stray: "kept in the file" } },
      classifiers: { gate: { enabled: true, model: { provider: "openrouter", id: "meta/llama-3" }, timeoutMs: 9000 } },
    });
    assert.deepEqual(readToolSettings(dir), [
      { name: "websearch", enabled: true, settings: { provider: "tavily", braveKey: "••••", tavilyKey: "••••9876" } },
      { name: "classifiers.gate", enabled: true, settings: { model: "openrouter/meta/llama-3", timeoutMs: "9000" } },
    ]);
  });

  test("a file that cannot be understood is corrupt, never read as defaults", () => {
    for (const content of ["{ not json", "[1]", { tools: [] }, { tools: { websearch: "on" } }, { classifiers: { gate: 1 } }]) {
      assert.throws(
        () => readToolSettings(agentDir(content)),
        (error: unknown) => error instanceof ToolSettingsError && error.code === "corrupt",
        JSON.stringify(content),
      );
    }
  });
});

describe("tool/settings write", () => {
  test("a write keeps the whole secret, leaves the rest of the file alone and makes it 0600", async () => {
    const dir = agentDir({ other: { kept: true }, classifiers: { gate: { enabled: true, model: { provider: "p", id: "m" } } } });
    await write(dir, "websearch", "braveKey", "BSA-whole-secret-1234");
    await write(dir, "websearch", "enabled", true);
    assert.deepEqual(fileOf(dir), {
      other: { kept: true },
      classifiers: { gate: { enabled: true, model: { provider: "p", id: "m" } } },
      tools: { websearch: { braveKey: "BSA-whole-secret-1234", enabled: true } },
    });
    assert.equal(statSync(join(dir, "tools.json")).mode & 0o777, 0o600);
    assert.equal(readToolSettings(dir)[0]!.settings.braveKey, "••••1234");
  });

  test("null deletes a key; enabled: null restores the default, and an emptied entry and section go", async () => {
    const dir = agentDir();
    await write(dir, "websearch", "enabled", true);
    await write(dir, "websearch", "provider", "brave");
    await write(dir, "websearch", "enabled", null);
    assert.deepEqual(fileOf(dir), { tools: { websearch: { provider: "brave" } } });
    assert.equal(readToolSettings(dir)[0]!.enabled, false);
    await write(dir, "websearch", "provider", null);
    assert.deepEqual(fileOf(dir), {});
  });

  test("the classifier gate is written in the shape the gate reads", async () => {
    const dir = agentDir();
    await write(dir, "classifiers.gate", "model", "openrouter/anthropic/claude-haiku");
    await write(dir, "classifiers.gate", "timeoutMs", "5000");
    await write(dir, "classifiers.gate", "instructions", "Never touch /srv.");
    await write(dir, "classifiers.gate", "enabled", true);
    const file = readToolsFile(dir);
    assert.deepEqual(file.gate, {
      state: "on",
      config: { model: { provider: "openrouter", id: "anthropic/claude-haiku" }, instructions: "Never touch /srv.", timeoutMs: 5000 },
    });
    assert.deepEqual(file.warnings, []);
  });

  test("unknown names, malformed or unknown keys and wrong values are refused, and no file is created", async () => {
    const dir = agentDir();
    await refused(write(dir, "bash", "enabled", false), "unknownTool", /defaultTools/);
    await refused(write(dir, "classifiers", "gate", "x"), "unknownTool", /websearch and classifiers\.gate/);
    await refused(write(dir, "websearch", "", "x"), "invalidKey", /empty/);
    await refused(write(dir, "websearch", "provider.name", "x"), "invalidKey", /dotted/);
    for (const key of ["__proto__", "constructor", "prototype"]) await refused(write(dir, "websearch", key, "x"), "invalidKey", /forbidden/);
    await refused(write(dir, "websearch", "k".repeat(65), "x"), "invalidKey", /longer than 64/);
    await refused(write(dir, "websearch", "brave key", "x"), "invalidKey", /letters, digits/);
    await refused(
      write(dir, "websearch", "bravekey", "x"),
      "invalidKey",
      /not a setting of websearch; its settings are enabled, provider, braveKey, tavilyKey, baseUrl/,
    );
    await refused(write(dir, "websearch", "toString", "x"), "invalidKey", /not a setting/);
    await refused(write(dir, "websearch", "enabled", "true"), "invalidValue", /true, false or null/);
    await refused(write(dir, "websearch", "provider", true), "invalidValue", /a string or null/);
    await refused(write(dir, "websearch", "provider", "google"), "invalidValue", /one of brave, tavily/);
    await refused(write(dir, "websearch", "braveKey", ""), "invalidValue", /empty/);
    await refused(write(dir, "websearch", "braveKey", "two\nlines"), "invalidValue", /control characters/);
    await refused(write(dir, "websearch", "baseUrl", "ftp://127.0.0.1"), "invalidValue", /http or https/);
    await refused(write(dir, "websearch", "baseUrl", "http://user:pw@127.0.0.1"), "invalidValue", /user name or password/);
    await refused(write(dir, "classifiers.gate", "model", "no-slash"), "invalidValue", /<provider>\/<model id>/);
    await refused(write(dir, "classifiers.gate", "timeoutMs", "20s"), "invalidValue", /milliseconds/);
    await refused(write(dir, "classifiers.gate", "timeoutMs", "0"), "invalidValue", /milliseconds/);
    assert.equal(existsSync(join(dir, "tools.json")), false);
  });

  test("a corrupt file is refused byte for byte, and the classifier gate stays broken", async () => {
    const text = '{"classifiers": {"gate": {"enabled": true, model: 1}}}';
    const dir = agentDir(text);
    await refused(write(dir, "websearch", "enabled", true), "corrupt", /never overwritten/);
    await refused(write(agentDir({ tools: { websearch: [] } }), "websearch", "enabled", true), "corrupt", /tools\.websearch that is not an object/);
    assert.equal(readFileSync(join(dir, "tools.json"), "utf8"), text);
    assert.equal(readToolsFile(dir).gate.state, "broken");
  });

  test("writers of one file in one process queue: no update is lost", async () => {
    const dir = agentDir();
    await Promise.all([
      write(dir, "websearch", "braveKey", "brave-key-0001"),
      write(dir, "websearch", "tavilyKey", "tavily-key-0002"),
      write(dir, "websearch", "provider", "tavily"),
      write(dir, "classifiers.gate", "model", "p/m"),
      write(dir, "websearch", "enabled", true),
    ]);
    assert.deepEqual(fileOf(dir), {
      tools: { websearch: { braveKey: "brave-key-0001", tavilyKey: "tavily-key-0002", provider: "tavily", enabled: true } },
      classifiers: { gate: { model: { provider: "p", id: "m" } } },
    });
  });
});

describe("tools.json tools", () => {
  test("a tool is on only when its entry says so; a malformed entry keeps the default, with a warning", () => {
    assert.equal(toolEnabled(readToolsFile(agentDir()), "websearch", false), false);
    assert.equal(toolEnabled(readToolsFile(agentDir({ tools: { websearch: { enabled: true } } })), "websearch", false), true);
    for (const content of [{ tools: "all" }, { tools: { websearch: true } }, { tools: { websearch: { enabled: "yes" } } }]) {
      const file = readToolsFile(agentDir(content));
      assert.equal(toolEnabled(file, "websearch", false), false, JSON.stringify(content));
      assert.equal(file.warnings.length, 1, JSON.stringify(content));
      assert.match(file.warnings[0]!.message, /keep their defaults/);
      assert.equal(file.gate.state, "off", "the gate does not depend on the tools section");
    }
  });
});
