import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { DEFAULT_CLASSIFIER_TIMEOUT_MS, readToolsFile } from "../../src/tools/tools-json.js";

const root = mkdtempSync(join(tmpdir(), "kc-tools-json-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** An agent dir whose tools.json holds `content` (text as is, anything else as JSON); none when undefined. */
function agentDir(content?: unknown): string {
  const dir = join(root, `agent-${n++}`);
  mkdirSync(dir, { recursive: true });
  if (content !== undefined) writeFileSync(join(dir, "tools.json"), typeof content === "string" ? content : JSON.stringify(content));
  return dir;
}

const gate = (entry: unknown) => ({ classifiers: { gate: entry } });
const model = { provider: "scripted", id: "scripted-classifier" };

describe("tools.json", () => {
  test("a missing file is an empty one: the classifier gate is off, with no warning", () => {
    const file = readToolsFile(agentDir());
    assert.equal(file.exists, false);
    assert.deepEqual(file.gate, { state: "off" });
    assert.deepEqual(file.warnings, []);
  });

  test("a blank file, a file without classifiers and a gate not switched on leave the gate off", () => {
    for (const content of ["", "  \n", { tools: { websearch: { provider: "brave" } } }, gate({ model }), gate({ enabled: false, model })]) {
      const file = readToolsFile(agentDir(content));
      assert.deepEqual(file.gate, { state: "off" }, JSON.stringify(content));
      assert.deepEqual(file.warnings, [], JSON.stringify(content));
    }
  });

  test("an enabled gate with a model is on, with the default timeout and the user's instructions", () => {
    const on = readToolsFile(agentDir(gate({ enabled: true, model, instructions: "Never touch /srv." })));
    assert.deepEqual(on.warnings, []);
    assert.deepEqual(on.gate, { state: "on", config: { model, instructions: "Never touch /srv.", timeoutMs: DEFAULT_CLASSIFIER_TIMEOUT_MS } });
    const timed = readToolsFile(agentDir(gate({ enabled: true, model, timeoutMs: 500 })));
    assert.deepEqual(timed.gate, { state: "on", config: { model, timeoutMs: 500 } });
    assert.deepEqual(timed.value, gate({ enabled: true, model, timeoutMs: 500 }), "the whole file is kept for the tool settings");
  });

  test("a file that is not JSON is a settings warning with its path and position, and the gate fails closed", () => {
    const dir = agentDir('{\n  "classifiers": {\n    "gate": { enabled: true }\n  }\n}');
    const file = readToolsFile(dir);
    assert.equal(file.warnings.length, 1);
    const [warning] = file.warnings;
    assert.equal(warning!.source, "settings");
    assert.equal(warning!.path, join(dir, "tools.json"));
    assert.equal(warning!.line, 3);
    assert.match(warning!.message, /not valid JSON/);
    assert.equal(file.gate.state, "broken");
    assert.match((file.gate as { reason: string }).reason, /not valid JSON/);
  });

  test("a file that holds no object, and classifier entries that cannot be understood, break the gate with one warning each", () => {
    const cases: [unknown, RegExp][] = [
      ["[1, 2]", /must hold a JSON object/],
      [{ classifiers: [] }, /classifiers must be an object/],
      [gate("yes"), /classifiers\.gate must be an object/],
      [gate({ enabled: "true", model }), /enabled must be true or false/],
      [gate({ enabled: true }), /model must be/],
      [gate({ enabled: true, model: "scripted/scripted-classifier" }), /model must be/],
      [gate({ enabled: true, model: { provider: "scripted", id: "" } }), /model must be/],
      [gate({ enabled: true, model, instructions: 42 }), /instructions must be text/],
      [gate({ enabled: true, model, instructions: "x".repeat(4_001) }), /longer than 4000/],
      [gate({ enabled: true, model, timeoutMs: 0 }), /timeoutMs must be/],
      [gate({ enabled: true, model, timeoutMs: 1.5 }), /timeoutMs must be/],
      [gate({ enabled: true, model, timeoutMs: "20s" }), /timeoutMs must be/],
    ];
    for (const [content, pattern] of cases) {
      const dir = agentDir(content);
      const file = readToolsFile(dir);
      assert.equal(file.gate.state, "broken", JSON.stringify(content));
      assert.equal(file.warnings.length, 1, JSON.stringify(content));
      assert.match(file.warnings[0]!.message, pattern);
      assert.equal(file.warnings[0]!.source, "settings");
      assert.equal(file.warnings[0]!.path, join(dir, "tools.json"));
    }
  });

  test("an unknown key in an enabled gate is a warning and the gate stays on", () => {
    const file = readToolsFile(agentDir(gate({ enabled: true, model, instruction: "typo" })));
    assert.equal(file.gate.state, "on");
    assert.equal(file.warnings.length, 1);
    assert.match(file.warnings[0]!.message, /classifiers\.gate\.instruction is not a classifier setting/);
  });

  test("a folder in the file's place is a warning, not a crash", () => {
    const dir = agentDir();
    mkdirSync(join(dir, "tools.json"));
    const file = readToolsFile(dir);
    assert.equal(file.gate.state, "broken");
    assert.equal(file.warnings.length, 1);
    assert.match(file.warnings[0]!.message, /cannot be read/);
  });
});
