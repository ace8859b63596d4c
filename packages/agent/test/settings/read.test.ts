import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readSettings } from "../../src/settings/read.js";
import { layout, put, tempRoot } from "@knightcode/repo/test/settings/fixtures";

const fresh = tempRoot("settings-read");

describe("readSettings", () => {
  test("project values merge over global ones: objects deeply, arrays and scalars replaced; origins per leaf", () => {
    const { agentDir, cwd, globalFile, projectFile } = layout(fresh);
    const globalVersion = put(globalFile, {
      theme: "light",
      extensions: ["/a", "/b"],
      retry: { provider: { maxRetries: 5, baseDelayMs: 100 } },
      myExt: { color: "red", size: 2 },
    });
    const projectVersion = put(projectFile, { extensions: ["/c"], retry: { provider: { maxRetries: 1 } }, myExt: { size: 3 }, compaction: { enabled: false } });
    const snap = readSettings({ agentDir, cwd, trust: true });
    assert.deepEqual(snap.settings, {
      theme: "light",
      extensions: ["/c"],
      retry: { provider: { maxRetries: 1, baseDelayMs: 100 } },
      myExt: { color: "red", size: 3 },
      compaction: { enabled: false },
    });
    assert.deepEqual(snap.origins, {
      theme: "global",
      extensions: "project",
      "retry.provider.maxRetries": "project",
      "retry.provider.baseDelayMs": "global",
      "myExt.color": "global",
      "myExt.size": "project",
      "compaction.enabled": "project",
    });
    assert.deepEqual(snap.versions, { global: globalVersion, project: projectVersion });
    assert.deepEqual(snap.paths, { global: globalFile, project: projectFile });
    assert.deepEqual(snap.errors, []);
    assert.equal(snap.effective.retry.provider.maxRetries, 1);
    assert.equal(snap.effective.retry.provider.maxRetryDelayMs, 60000);
    assert.equal(snap.effective.compaction.enabled, false);
    assert.equal(snap.effective.theme, "light");
    assert.equal(snap.defaults.theme, "dark");
  });

  test("a project scalar replacing a global object drops the object's origins", () => {
    const { agentDir, cwd, globalFile, projectFile } = layout(fresh);
    put(globalFile, { myExt: { a: 1, b: { c: 2 } } });
    put(projectFile, { myExt: "off" });
    const snap = readSettings({ agentDir, cwd, trust: true });
    assert.deepEqual(snap.settings, { myExt: "off" });
    assert.deepEqual(snap.origins, { myExt: "project" });
  });

  test("an untrusted or undecided project's file is not read and has version none", () => {
    const { agentDir, cwd, globalFile, projectFile } = layout(fresh);
    put(globalFile, { theme: "light" });
    put(projectFile, { theme: "project-theme" });
    for (const trust of [false, null, undefined, { decisionFor: () => null }]) {
      const snap = readSettings({ agentDir, cwd, trust });
      assert.equal(snap.effective.theme, "light");
      assert.equal(snap.versions.project, "none");
      assert.equal(snap.paths.project, projectFile);
      assert.equal(snap.scopes.project?.state, "untrusted");
      assert.deepEqual(snap.origins, { theme: "global" });
    }
    const trusted = readSettings({ agentDir, cwd, trust: { decisionFor: (dir) => dir === cwd } });
    assert.equal(trusted.effective.theme, "project-theme");
    assert.notEqual(trusted.versions.project, "none");
  });

  test("without cwd only the global scope is read; absent files are version none", () => {
    const { agentDir } = layout(fresh);
    const snap = readSettings({ agentDir });
    assert.deepEqual(snap.versions, { global: "none" });
    assert.equal("project" in snap.paths, false);
    assert.deepEqual(snap.settings, {});
    assert.deepEqual(snap.effective, snap.defaults);
  });

  test("a parse error is a warning with line and column; that scope is empty and the other still loads", () => {
    const { agentDir, cwd, globalFile, projectFile } = layout(fresh);
    put(globalFile, { theme: "light", retry: { provider: { maxRetries: 7 } } });
    const text = '{\n  "theme": "solar",\n  "compaction": {"enabled": false,}\n}\n';
    const version = put(projectFile, text);
    const snap = readSettings({ agentDir, cwd, trust: true });
    assert.equal(snap.effective.theme, "light");
    assert.equal(snap.effective.retry.provider.maxRetries, 7);
    assert.equal(snap.effective.compaction.enabled, true);
    assert.equal(snap.versions.project, version, "a corrupt file still has the version of its bytes");
    assert.equal(snap.errors.length, 1);
    const [warning] = snap.errors;
    assert.equal(warning?.source, "settings");
    assert.equal(warning?.path, projectFile);
    assert.equal(warning?.line, 3);
    assert.equal(warning?.column, 35);
    assert.match(warning?.message ?? "", /not valid JSON/);
  });

  test("a file holding JSON that is not an object counts as corrupt", () => {
    const { agentDir, globalFile } = layout(fresh);
    put(globalFile, "[1, 2]\n");
    const snap = readSettings({ agentDir });
    assert.equal(snap.scopes.global.state, "corrupt");
    assert.match(snap.errors[0]?.message ?? "", /must hold a JSON object/);
  });

  test("a blank file and a byte order mark are tolerated", () => {
    const { agentDir, cwd, globalFile, projectFile } = layout(fresh);
    put(globalFile, '\uFEFF{"theme": "light"}\n');
    put(projectFile, "  \n");
    const snap = readSettings({ agentDir, cwd, trust: true });
    assert.deepEqual(snap.errors, []);
    assert.equal(snap.effective.theme, "light");
    assert.equal(snap.scopes.project?.state, "loaded");
  });

  test("known settings of the wrong type warn, fall back to their default, and stay in the raw settings", () => {
    const { agentDir, cwd, globalFile, projectFile } = layout(fresh);
    put(globalFile, { defaultThinkingLevel: "extreme", compaction: { reserveTokens: -1 }, defaultTools: ["read", "bad name"], unknown: { x: 1 } });
    put(projectFile, { worktrees: 3 });
    const snap = readSettings({ agentDir, cwd, trust: true });
    assert.equal(snap.effective.defaultThinkingLevel, "medium");
    assert.equal(snap.effective.compaction.reserveTokens, 16384);
    assert.deepEqual(snap.effective.defaultTools, []);
    assert.equal(snap.effective.worktrees.keep, 15);
    assert.equal(snap.settings.defaultThinkingLevel, "extreme");
    assert.deepEqual(snap.settings.unknown, { x: 1 });
    const byKey = new Map(snap.errors.map((w) => [w.message.split(" ")[0], w]));
    assert.equal(byKey.get("defaultThinkingLevel")?.path, globalFile);
    assert.equal(byKey.get("compaction.reserveTokens")?.path, globalFile);
    assert.equal(byKey.get("defaultTools")?.path, globalFile);
    assert.equal(byKey.get("worktrees")?.path, projectFile);
    assert.equal(snap.errors.length, 4, "a group replaced by a scalar is reported once, not once per leaf");
  });

  test("legacy keys count when the canonical key is unset; the canonical key wins otherwise", () => {
    const { agentDir, cwd, globalFile, projectFile } = layout(fresh);
    put(globalFile, { retry: { maxRetries: 9, maxDelayMs: 5000, provider: { maxRetryDelayMs: 1000 } }, approvalMode: "fullAccess" });
    put(projectFile, { retry: { baseDelayMs: 10 } });
    const snap = readSettings({ agentDir, cwd, trust: true });
    assert.equal(snap.effective.retry.provider.maxRetries, 9);
    assert.equal(snap.effective.retry.provider.maxRetryDelayMs, 1000);
    assert.equal(snap.effective.retry.provider.baseDelayMs, 10);
    assert.equal(snap.effective.defaultApprovalMode, "fullAccess");
    assert.deepEqual(snap.settings.retry, { provider: { maxRetryDelayMs: 1000, maxRetries: 9, baseDelayMs: 10 } });
    assert.equal(snap.origins["retry.provider.baseDelayMs"], "project");
    assert.equal(snap.origins["defaultApprovalMode"], "global");
  });

  test("prototype names in a file stay plain data and never reach Object.prototype", () => {
    const { agentDir, cwd, globalFile, projectFile } = layout(fresh);
    put(globalFile, '{"__proto__": {"polluted": true}, "a": {"constructor": {"prototype": {"polluted": 1}}}}');
    put(projectFile, '{"__proto__": {"more": true}}');
    const snap = readSettings({ agentDir, cwd, trust: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(snap.settings), Object.prototype);
    assert.deepEqual(Object.keys(snap.settings), ["__proto__", "a"]);
    assert.deepEqual(
      JSON.parse(JSON.stringify(snap.settings)),
      JSON.parse('{"__proto__": {"polluted": true, "more": true}, "a": {"constructor": {"prototype": {"polluted": 1}}}}'),
    );
  });
});
