import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { CATALOGUE_ENTRIES, catalogueNode, SettingLeaf, settingsDefaults } from "../../src/settings/catalogue.js";
import { forEachLeaf, getPath } from "../../src/settings/keys.js";

const docsPath = fileURLToPath(new URL("../../../../../docs/settings.md", import.meta.url));

describe("settings catalogue", () => {
  test("the defaults tree holds exactly one leaf per catalogue entry, with its default", () => {
    const defaults = settingsDefaults();
    const leaves: string[] = [];
    forEachLeaf(defaults, "", (key) => leaves.push(key));
    assert.deepEqual(
      leaves,
      CATALOGUE_ENTRIES.map((entry) => entry.key),
    );
    for (const { segments, leaf } of CATALOGUE_ENTRIES) {
      assert.deepEqual(getPath(defaults, segments).value, leaf.defaultValue);
      assert.ok(leaf.kind.check(leaf.defaultValue), `${segments.join(".")}: the default must pass its own check`);
    }
  });

  test("the catalogue has the settings the spec and the architecture name", () => {
    const required = [
      "sessionDir",
      "defaultProvider",
      "defaultModel",
      "defaultThinkingLevel",
      "defaultApprovalMode",
      "theme",
      "retry.provider.enabled",
      "retry.provider.maxRetries",
      "retry.provider.baseDelayMs",
      "retry.provider.maxRetryDelayMs",
      "retry.provider.streamIdleTimeoutMs",
      "compaction.enabled",
      "compaction.reserveTokens",
      "compaction.keepRecentTokens",
      "defaultTools",
      "extensions",
      "extensionHookTimeoutMs",
      "skills",
      "prompts",
      "themes",
      "worktrees.root",
      "worktrees.keep",
      "worktrees.branchPrefix",
      "shellPath",
      "interruptGraceMs",
      "shellEnv.passThrough",
      "sandbox.mode",
      "sandbox.network",
      "sandbox.required",
      "requests.holdSeconds",
      "subagents.maxPerThread",
      "subagents.maxRunning",
      "terminals.maxPerThread",
      "terminals.maxOutputBytes",
    ];
    assert.deepEqual(CATALOGUE_ENTRIES.map((e) => e.key).sort(), [...required].sort());
  });

  test("documented defaults match the catalogue", () => {
    const defaults = settingsDefaults();
    assert.equal(defaults.defaultThinkingLevel, "medium");
    assert.equal(defaults.defaultApprovalMode, "ask");
    assert.equal(defaults.retry.provider.maxRetryDelayMs, 60000);
    assert.equal(defaults.compaction.reserveTokens, 16384);
    assert.equal(defaults.worktrees.branchPrefix, "knightcode/");
    assert.equal(defaults.sessionDir, null);
    assert.deepEqual(defaults.defaultTools, []);
    assert.equal(defaults.extensionHookTimeoutMs, 30000);
    assert.equal(defaults.requests.holdSeconds, 600);
  });

  test("each call returns a fresh copy", () => {
    const a = settingsDefaults();
    a.extensions.push("x");
    a.retry.provider.maxRetries = 99;
    assert.deepEqual(settingsDefaults().extensions, []);
    assert.equal(settingsDefaults().retry.provider.maxRetries, 3);
  });

  test("catalogueNode tells leaves, groups, unknown keys and keys below a leaf apart", () => {
    assert.ok(catalogueNode(["retry", "provider", "maxRetries"]).node instanceof SettingLeaf);
    assert.ok(catalogueNode(["retry"]).node !== undefined);
    assert.deepEqual(catalogueNode(["myExtension", "x"]), {});
    assert.deepEqual(catalogueNode(["theme", "x"]), { below: "theme" });
    assert.deepEqual(catalogueNode(["toString"]), {});
  });

  test("docs/settings.md documents every setting with its default", () => {
    const docs = readFileSync(docsPath, "utf8");
    for (const { key, leaf } of CATALOGUE_ENTRIES) {
      const row = docs.split("\n").find((line) => line.startsWith(`| \`${key}\` |`));
      assert.ok(row, `docs/settings.md has no table row for ${key}`);
      assert.ok(row.includes(`\`${JSON.stringify(leaf.defaultValue)}\``), `the row of ${key} does not show its default ${JSON.stringify(leaf.defaultValue)}`);
    }
  });
});
