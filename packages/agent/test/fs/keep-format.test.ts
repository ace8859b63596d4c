import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { saveEnvironments } from "../../src/environments/environments-file.js";
import { editJsonText } from "@knightcode/system/fs/json-edit";
import { updateMcpServer } from "../../src/mcp/write.js";
import { writeSetting } from "../../src/settings/write.js";
import { writeToolSetting } from "../../src/tools/tool-settings.js";
import { TrustStore } from "../../src/trust/store.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "kc-keep-format-")));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function folder(): string {
  const dir = join(root, `d${n++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes `text` at `path`, runs the write, and answers what the file holds afterwards. */
async function afterWrite(path: string, text: string, write: () => Promise<unknown>): Promise<string> {
  writeFileSync(path, text);
  await write();
  return readFileSync(path, "utf8");
}

// Each file kind is hand-formatted (three-space indents, a key on one line, no final newline) and holds a key
// KnightCode does not know; a write of one setting must change that setting's value and nothing else.
describe("a write keeps the user's formatting", () => {
  test("settings.json: config/write of one key", async () => {
    const agentDir = folder();
    const text = '{\n   "theme":    "light",\n   "myExtension": {"a": [1,2]},\n   "retry": { "provider": { "maxRetries": 3 } }\n}';
    const written = await afterWrite(join(agentDir, "settings.json"), text, () =>
      writeSetting({ agentDir, scope: "global", key: "retry.provider.maxRetries", value: 5 }),
    );
    assert.equal(written, text.replace('"maxRetries": 3', '"maxRetries": 5'));
  });

  test("tools.json: tool/settings/write of one key", async () => {
    const agentDir = folder();
    const text = '{\n\t"mine": true,\n\t"tools": {\n\t\t"websearch": { "enabled": false, "provider": "brave" }\n\t}\n}\n';
    const written = await afterWrite(join(agentDir, "tools.json"), text, () => writeToolSetting({ agentDir, name: "websearch", key: "enabled", value: true }));
    assert.equal(written, text.replace('"enabled": false', '"enabled": true'));
  });

  test("mcp.json: mcp/update of one server's enabled", async () => {
    const agentDir = folder();
    const text =
      '{ "note": "mine",\n    "mcpServers": {\n        "docs": { "command": "docs-server", "enabled": true },\n        "other": {"url": "https://x.test/"}\n    }\n}\n';
    const written = await afterWrite(join(agentDir, "mcp.json"), text, () => updateMcpServer({ agentDir, trust: null }, "docs", { enabled: false }));
    assert.equal(written, text.replace('"enabled": true', '"enabled": false'));
  });

  test("environments.json: environment/save that changes one script", async () => {
    const cwd = folder();
    mkdirSync(join(cwd, ".knightcode"));
    const text = '{\n "environments": [\n  { "name": "dev", "setup": { "default": "npm ci" } },\n  {"name": "docs", "setup": {"default": "make"}}\n ]\n}\n';
    const environments = [
      { name: "dev", setup: { default: "npm ci" } },
      { name: "docs", setup: { default: "make docs" } },
    ];
    const written = await afterWrite(join(cwd, ".knightcode", "environments.json"), text, () => saveEnvironments({ cwd, environments, trust: true }));
    assert.equal(written, text.replace('"make"', '"make docs"'));
  });

  test("trust.json: a decision changes only its own entry", async () => {
    const agentDir = folder();
    const project = folder();
    const text = `{\n      "version": 1,\n      "mine": [1, 2],\n      "projects": { ${JSON.stringify(project)}: { "trusted": false, "decidedAt": "then" } }\n}\n`;
    const written = await afterWrite(join(agentDir, "trust.json"), text, () => new TrustStore(agentDir).set(project, null));
    assert.equal(written, text.replace(`${JSON.stringify(project)}: { "trusted": false, "decidedAt": "then" } `, ""));
  });
});

describe("editJsonText", () => {
  test("a file with no text yet is written out whole, as before", () => {
    assert.equal(editJsonText(undefined, {}, { a: 1 }), '{\n  "a": 1\n}\n');
    assert.equal(editJsonText("  \n", {}, { a: 1 }), '{\n  "a": 1\n}\n');
  });

  test("a new key takes the file's indentation and line ends", () => {
    const edited = editJsonText('{\r\n\t"a": 1\r\n}\r\n', { a: 1 }, { a: 1, b: { c: true } });
    assert.deepEqual(JSON.parse(edited), { a: 1, b: { c: true } });
    assert.match(edited, /^\{\r\n\t"a": 1,\r\n\t"b": \{\r\n\t\t"c": true\r\n\t\}\r\n\}\r\n$/);
  });

  test("a removed key leaves its neighbours as they were", () => {
    const text = '{\n    "a":  1,\n    "b": 2,\n    "c": [3,4]\n}\n';
    assert.equal(editJsonText(text, { a: 1, b: 2, c: [3, 4] }, { a: 1, c: [3, 4] }), '{\n    "a":  1,\n    "c": [3,4]\n}\n');
  });
});
