import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  EnvironmentsError,
  environmentsPath,
  environmentsProblem,
  MAX_SCRIPT_BYTES,
  readEnvironments,
  saveEnvironments,
  scriptFor,
} from "../../src/environments/environments-file.js";
import { tempRoot } from "@knightcode/repo/test/settings/fixtures";

const fresh = tempRoot("environments");

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<EnvironmentsError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof EnvironmentsError, `expected an EnvironmentsError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected a ${code} EnvironmentsError`);
}

describe("environments.json", () => {
  test("the rules: a list of at most 50, unique names, known keys, non-empty scripts within the byte limit", () => {
    const ok = (name: string) => ({ name, setup: { default: "true" } });
    assert.equal(environmentsProblem([]), undefined);
    assert.equal(
      environmentsProblem([ok("a"), { name: "b", setup: { default: "x", linux: "y", darwin: "z", win32: "w" }, cleanup: { default: "c" } }]),
      undefined,
    );
    assert.equal(environmentsProblem([{ name: "max", setup: { default: "é".repeat(MAX_SCRIPT_BYTES / 2) } }]), undefined);
    const problems: [unknown, RegExp][] = [
      [{}, /must be a list/],
      [Array.from({ length: 51 }, (_, i) => ok(`e${i}`)), /at most 50/],
      [[ok("a"), ok("a")], /environments\[1\]\.name "a" is used twice/],
      [[ok("")], /name must be a non-empty string/],
      [[ok(" a")], /whitespace/],
      [[ok("a\tb")], /control characters/],
      [[ok("x".repeat(129))], /longer than 128/],
      [[{ name: "a" }], /environments\[0\]\.setup must be an object/],
      [[{ name: "a", setup: { linux: "x" } }], /needs a "default"/],
      [[{ name: "a", setup: { default: "x", aix: "y" } }], /unknown key "aix"/],
      [[{ name: "a", setup: { default: 1 } }], /setup\.default must be a non-empty string/],
      [[{ name: "a", setup: { default: "é".repeat(MAX_SCRIPT_BYTES / 2 + 1) } }], /65538 bytes/],
      [[{ name: "a", setup: { default: "x" }, cleanup: "rm" }], /cleanup must be an object/],
      [[{ name: "a", setup: { default: "x" }, extra: 1 }], /unknown key "extra"/],
    ];
    for (const [list, pattern] of problems) assert.match(environmentsProblem(list) ?? "(no problem)", pattern);
  });

  test("scriptFor picks the platform's own script, else the default", () => {
    const scripts = { default: "sh setup.sh", win32: "setup.cmd" };
    assert.equal(scriptFor(scripts, "win32"), "setup.cmd");
    assert.equal(scriptFor(scripts, "linux"), "sh setup.sh");
    assert.equal(scriptFor(scripts, "freebsd"), "sh setup.sh");
  });

  test("no file, or a blank one, is an empty list; a broken one is corrupt with its place", () => {
    const cwd = fresh();
    assert.deepEqual(readEnvironments(cwd), { path: environmentsPath(cwd), exists: false, environments: [], version: "none" });
    mkdirSync(join(cwd, ".knightcode"));
    writeFileSync(environmentsPath(cwd), "  \n");
    assert.deepEqual(readEnvironments(cwd).environments, []);
    writeFileSync(environmentsPath(cwd), '{\n  "environments": [\n');
    assert.throws(
      () => readEnvironments(cwd),
      (error: unknown) => error instanceof EnvironmentsError && error.code === "corrupt" && /line \d+, column \d+/.test(error.message),
    );
  });

  test("a save needs an explicit trust decision, replaces the list, and never overwrites a broken file", async () => {
    const cwd = fresh();
    const node = { name: "node", setup: { default: "npm ci" } };
    for (const trust of [null, false, { decisionFor: () => null }]) await rejectsWith(saveEnvironments({ cwd, environments: [node], trust }), "untrusted");
    await rejectsWith(saveEnvironments({ cwd, environments: [node, node], trust: true }), "invalid");
    assert.equal(existsSync(join(cwd, ".knightcode")), false);
    await saveEnvironments({ cwd, environments: [node], trust: true });
    assert.equal(
      readFileSync(environmentsPath(cwd), "utf8"),
      '{\n  "environments": [\n    {\n      "name": "node",\n      "setup": {\n        "default": "npm ci"\n      }\n    }\n  ]\n}\n',
    );
    writeFileSync(environmentsPath(cwd), "[oops");
    await rejectsWith(saveEnvironments({ cwd, environments: [], trust: true }), "corrupt");
    assert.equal(readFileSync(environmentsPath(cwd), "utf8"), "[oops");
  });
});
