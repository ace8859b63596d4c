import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync, existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SettingsError } from "../../src/settings/errors.js";
import { sha256Hex } from "@knightcode/system/fs/json-file";
import { readSettings } from "../../src/settings/read.js";
import { SettingsStore } from "../../src/settings/store.js";
import { updateSettings, writeSetting } from "../../src/settings/write.js";
import { layout, put, tempRoot } from "@knightcode/repo/test/settings/fixtures";

const fresh = tempRoot("settings-write");

async function rejectsWith(promise: Promise<unknown>, code: string, data?: object): Promise<SettingsError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SettingsError, `expected a SettingsError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (data) assert.deepEqual({ ...error.data, ...data }, error.data);
    return error;
  }
  assert.fail(`expected a ${code} SettingsError`);
}

const json = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));

describe("writeSetting", () => {
  test("creates the file, sets nested keys, returns the version of the bytes written", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const { version } = await writeSetting({ agentDir, scope: "global", key: "retry.provider.maxRetryDelayMs", value: 5000, expectedVersion: "none" });
    const text = readFileSync(globalFile, "utf8");
    assert.equal(text, '{\n  "retry": {\n    "provider": {\n      "maxRetryDelayMs": 5000\n    }\n  }\n}\n');
    assert.equal(version, sha256Hex(text));
    assert.equal(readSettings({ agentDir }).versions.global, version);
  });

  test("null deletes the leaf and prunes the parents it emptied, not others", async () => {
    const { agentDir, globalFile } = layout(fresh);
    put(globalFile, { keep: {}, retry: { provider: { maxRetries: 1 } }, a: { b: { c: 1 }, d: 2 } });
    await writeSetting({ agentDir, scope: "global", key: "retry.provider.maxRetries", value: null });
    await writeSetting({ agentDir, scope: "global", key: "a.b.c", value: null });
    assert.deepEqual(json(globalFile), { keep: {}, a: { d: 2 } });
  });

  test("unrelated keys keep their values and their order", async () => {
    const { agentDir, globalFile } = layout(fresh);
    put(globalFile, { zeta: 1, theme: "light", alpha: { nested: [1, { x: null }] }, extension: { "my-ext": { on: true } } });
    await writeSetting({ agentDir, scope: "global", key: "theme", value: "solarized" });
    await writeSetting({ agentDir, scope: "global", key: "compaction.enabled", value: false });
    const text = readFileSync(globalFile, "utf8");
    assert.deepEqual(Object.keys(JSON.parse(text) as object), ["zeta", "theme", "alpha", "extension", "compaction"]);
    assert.deepEqual(json(globalFile), {
      zeta: 1,
      theme: "solarized",
      alpha: { nested: [1, { x: null }] },
      extension: { "my-ext": { on: true } },
      compaction: { enabled: false },
    });
  });

  test("a write that changes nothing leaves the file alone", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const version = put(globalFile, '{"theme":"light"}');
    const before = statSync(globalFile).mtimeMs;
    assert.deepEqual(await writeSetting({ agentDir, scope: "global", key: "nothing.here", value: null }), { version });
    assert.deepEqual(await writeSetting({ agentDir, scope: "global", key: "theme", value: "light" }), { version });
    assert.equal(statSync(globalFile).mtimeMs, before);
    const empty = layout(fresh);
    assert.deepEqual(await writeSetting({ agentDir: empty.agentDir, scope: "global", key: "theme", value: null }), { version: "none" });
    assert.equal(existsSync(empty.globalFile), false);
  });

  test("malformed keys and prototype segments are refused, and Object.prototype stays clean", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    for (const key of [
      "",
      ".",
      "a..b",
      "a.",
      ".a",
      "a b",
      "a.b\n",
      "__proto__",
      "__proto__.polluted",
      "a.__proto__.polluted",
      "constructor.prototype.polluted",
      "a.prototype",
      "x".repeat(600),
    ]) {
      await rejectsWith(writeSetting({ agentDir, scope: "global", key, value: "yes" }), "invalidKey");
    }
    await rejectsWith(writeSetting({ agentDir, scope: "global", key: 42 as unknown as string, value: 1 }), "invalidKey");
    await rejectsWith(writeSetting({ agentDir, scope: "global", key: "ext", value: JSON.parse('{"__proto__": {"polluted": true}}') }), "invalidValue");
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(existsSync(globalFile), false);
  });

  test("known settings check their type; unknown keys take any JSON", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const bad: Array<[string, unknown]> = [
      ["theme", 3],
      ["theme", ""],
      ["defaultThinkingLevel", "max"],
      ["defaultApprovalMode", "never"],
      ["retry.provider.maxRetries", -1],
      ["retry.provider.maxRetries", 1.5],
      ["retry.provider.enabled", "yes"],
      ["defaultTools", ["read", 3]],
      ["defaultTools", "read"],
      ["extensions", [""]],
      ["worktrees.branchPrefix", "a b"],
      ["retry", 5],
      ["retry.provider", { maxRetries: "3" }],
      ["sessionDir", 7],
      ["myExt", undefined],
      ["myExt", () => 1],
      ["myExt", Number.NaN],
      ["myExt", new Date()],
      ["myExt", { when: undefined }],
    ];
    for (const [key, value] of bad) {
      const error = await rejectsWith(writeSetting({ agentDir, scope: "global", key, value }), "invalidValue");
      assert.ok(error.message.includes(key), `the message names the key: ${error.message}`);
    }
    await rejectsWith(writeSetting({ agentDir, scope: "global", key: "theme.name", value: "x" }), "invalidKey");
    assert.equal(existsSync(globalFile), false);
    await writeSetting({ agentDir, scope: "global", key: "retry.provider", value: { maxRetries: 0, custom: "kept" } });
    await writeSetting({ agentDir, scope: "global", key: "myExt", value: { list: [1, "two", null, { deep: true }] } });
    await writeSetting({ agentDir, scope: "global", key: "defaultTools", value: ["-bash", "+grep", "find"] });
    await writeSetting({ agentDir, scope: "global", key: "@scope/ext:opt", value: 1 });
    const snap = readSettings({ agentDir });
    assert.equal(snap.effective.retry.provider.maxRetries, 0);
    assert.deepEqual(snap.effective.defaultTools, ["-bash", "+grep", "find"]);
    assert.deepEqual(snap.settings.myExt, { list: [1, "two", null, { deep: true }] });
    assert.deepEqual(snap.errors, []);
  });

  test("a key through a non-object is refused rather than overwriting it", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const version = put(globalFile, { myExt: "on" });
    await rejectsWith(writeSetting({ agentDir, scope: "global", key: "myExt.color", value: "red" }), "invalidKey");
    assert.equal(sha256Hex(readFileSync(globalFile)), version);
  });

  test("expectedVersion: a stale version is a conflict carrying the current one", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const first = await writeSetting({ agentDir, scope: "global", key: "theme", value: "a", expectedVersion: "none" });
    const second = await writeSetting({ agentDir, scope: "global", key: "theme", value: "b", expectedVersion: first.version });
    await rejectsWith(writeSetting({ agentDir, scope: "global", key: "theme", value: "c", expectedVersion: first.version }), "conflict", {
      version: second.version,
    });
    await rejectsWith(writeSetting({ agentDir, scope: "global", key: "theme", value: "c", expectedVersion: "none" }), "conflict", { version: second.version });
    assert.deepEqual(json(globalFile), { theme: "b" });
    writeFileSync(globalFile, '{"theme": "edited by hand"}\n');
    const error = await rejectsWith(writeSetting({ agentDir, scope: "global", key: "theme", value: "d", expectedVersion: second.version }), "conflict");
    assert.equal(error.data.version, readSettings({ agentDir }).versions.global);
  });

  test("a corrupt file is refused for writes and left byte-identical", async () => {
    const { agentDir, cwd, globalFile, projectFile } = layout(fresh);
    const broken = '{"theme": "light",, }\n';
    put(globalFile, broken);
    put(projectFile, '"just a string"\n');
    await rejectsWith(writeSetting({ agentDir, scope: "global", key: "theme", value: "dark" }), "corrupt");
    await rejectsWith(
      updateSettings({ agentDir, scope: "global" }, (s) => void (s.theme = "x")),
      "corrupt",
    );
    await rejectsWith(writeSetting({ agentDir, scope: "project", cwd, trust: true, key: "theme", value: "dark" }), "corrupt");
    assert.equal(readFileSync(globalFile, "utf8"), broken);
    assert.equal(readFileSync(projectFile, "utf8"), '"just a string"\n');
    assert.equal(existsSync(`${globalFile}.lock`), false, "the lock is released after a refusal");
  });

  test("migrations are persisted before the edit: deleting a canonical key does not resurrect its legacy alias", async () => {
    const { agentDir, globalFile } = layout(fresh);
    put(globalFile, { theme: "light", retry: { maxRetries: 8, baseDelayMs: 50, provider: { baseDelayMs: 75 } }, approvalMode: "autoEdit" });
    await writeSetting({ agentDir, scope: "global", key: "retry.provider.maxRetries", value: null });
    assert.deepEqual(json(globalFile), { theme: "light", retry: { provider: { baseDelayMs: 75 } }, defaultApprovalMode: "autoEdit" });
    assert.equal(readSettings({ agentDir }).effective.retry.provider.maxRetries, 3);
    await writeSetting({ agentDir, scope: "global", key: "defaultApprovalMode", value: null });
    assert.equal(readSettings({ agentDir }).effective.defaultApprovalMode, "ask");
  });

  test("legacy names cannot be written", async () => {
    const { agentDir } = layout(fresh);
    await rejectsWith(writeSetting({ agentDir, scope: "global", key: "approvalMode", value: "ask" }), "invalidKey");
    await rejectsWith(writeSetting({ agentDir, scope: "global", key: "retry.maxDelayMs", value: 10 }), "invalidKey");
    await rejectsWith(writeSetting({ agentDir, scope: "global", key: "retry", value: { maxRetries: 2 } }), "invalidKey");
    await rejectsWith(
      updateSettings({ agentDir, scope: "global" }, (s) => void (s.approvalMode = "ask")),
      "invalidKey",
    );
  });

  test("project writes need a cwd that exists and an explicitly trusted project", async () => {
    const { agentDir, cwd, projectFile } = layout(fresh);
    await rejectsWith(writeSetting({ agentDir, scope: "project", key: "theme", value: "x", trust: true }), "missingCwd", { reason: "missingCwd" });
    await rejectsWith(writeSetting({ agentDir, scope: "project", cwd: join(cwd, "nope"), key: "theme", value: "x", trust: true }), "missingCwd");
    for (const trust of [undefined, null, false, { decisionFor: () => null }]) {
      await rejectsWith(writeSetting({ agentDir, scope: "project", cwd, key: "theme", value: "x", trust }), "untrusted", { reason: "untrusted" });
    }
    assert.equal(existsSync(join(cwd, ".knightcode")), false);
    assert.equal(existsSync(join(cwd, "nope")), false);
    await writeSetting({ agentDir, scope: "project", cwd, key: "theme", value: "x", trust: { decisionFor: () => true } });
    assert.deepEqual(json(projectFile), { theme: "x" });
  });

  test("a refused write, or one that changes nothing, creates no folder and leaves no lock file", async () => {
    const { agentDir, cwd, projectFile } = layout(fresh);
    const trust = { decisionFor: () => true };
    await rejectsWith(writeSetting({ agentDir, scope: "project", cwd, trust, key: "theme", value: "x", expectedVersion: "0".repeat(64) }), "conflict", {
      version: "none",
    });
    await rejectsWith(
      updateSettings({ agentDir, scope: "project", cwd, trust }, (s) => void (s.theme = 7)),
      "invalidValue",
    );
    await assert.rejects(
      updateSettings({ agentDir, scope: "project", cwd, trust }, () => {
        throw new Error("no");
      }),
    );
    assert.deepEqual(await writeSetting({ agentDir, scope: "project", cwd, trust, key: "theme", value: null }), { version: "none" });
    const missingAgentDir = join(agentDir, "not-yet");
    await rejectsWith(writeSetting({ agentDir: missingAgentDir, scope: "global", key: "theme", value: "x", expectedVersion: "0".repeat(64) }), "conflict");
    assert.equal(existsSync(join(cwd, ".knightcode")), false);
    assert.equal(existsSync(missingAgentDir), false);
    const { version } = await writeSetting({ agentDir, scope: "project", cwd, trust, key: "theme", value: "x", expectedVersion: "none" });
    assert.equal(sha256Hex(readFileSync(projectFile)), version);
    assert.deepEqual(readdirSync(join(cwd, ".knightcode")), ["settings.json"]);
  });

  test("updateSettings edits under the same machinery and checks what it changed", async () => {
    const { agentDir, globalFile } = layout(fresh);
    put(globalFile, { theme: 5, counter: 1 });
    const { version } = await updateSettings({ agentDir, scope: "global" }, (s) => {
      s.counter = (s.counter as number) + 1;
      s.myExt = { on: true };
    });
    assert.deepEqual(json(globalFile), { theme: 5, counter: 2, myExt: { on: true } }, "a value already wrong and left alone does not block the edit");
    await rejectsWith(
      updateSettings({ agentDir, scope: "global" }, (s) => void (s.compaction = { enabled: "no" })),
      "invalidValue",
    );
    await rejectsWith(
      updateSettings({ agentDir, scope: "global" }, (s) => void (s.worktrees = 3)),
      "invalidValue",
    );
    await rejectsWith(
      updateSettings({ agentDir, scope: "global" }, (s) => void (s.when = new Date())),
      "invalidValue",
    );
    const mine = new Error("changed my mind");
    await assert.rejects(
      updateSettings({ agentDir, scope: "global" }, () => {
        throw mine;
      }),
      (error) => error === mine,
    );
    assert.equal(sha256Hex(readFileSync(globalFile)), version);
  });

  test("a symlinked settings file is written through to its target", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const dotfiles = join(agentDir, "..", "dotfiles");
    mkdirSync(dotfiles);
    put(join(dotfiles, "settings.json"), { theme: "light" });
    symlinkSync(join(dotfiles, "settings.json"), globalFile);
    await writeSetting({ agentDir, scope: "global", key: "theme", value: "dark" });
    assert.ok(lstatSync(globalFile).isSymbolicLink());
    assert.deepEqual(json(join(dotfiles, "settings.json")), { theme: "dark" });
  });

  test("SettingsStore reads and writes both scopes", async () => {
    const { agentDir, cwd } = layout(fresh);
    const store = new SettingsStore({ agentDir, cwd, trust: true });
    await store.write("global", "theme", "light");
    await store.update("project", (s) => void (s.theme = "project"));
    const snap = store.read();
    assert.equal(snap.effective.theme, "project");
    assert.equal(snap.origins.theme, "project");
    assert.equal(snap.scopes.global.settings.theme, "light");
  });

  test("filesystem failures are io errors; an aborted write is an AbortError and writes nothing", async () => {
    const { agentDir, globalFile } = layout(fresh);
    const blocker = join(agentDir, "a-file");
    writeFileSync(blocker, "");
    await rejectsWith(writeSetting({ agentDir: join(blocker, "agent"), scope: "global", key: "theme", value: "x" }), "io");
    await assert.rejects(writeSetting({ agentDir, scope: "global", key: "theme", value: "x", signal: AbortSignal.abort() }), { name: "AbortError" });
    assert.equal(existsSync(globalFile), false);
  });
});
