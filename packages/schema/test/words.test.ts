import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Settings } from "../src/settings.js";
import { expected, typeTitle } from "../src/words.js";

const { properties: p } = Settings;

describe("the words for a setting's values", () => {
  test("messages keep the phrases the settings errors have always used", () => {
    assert.equal(expected(p.sessionDir), "a non-empty string or null");
    assert.equal(expected(p.theme), "a non-empty string");
    assert.equal(expected(p.retry.properties.provider.properties.enabled), "true or false");
    assert.equal(expected(p.interruptGraceMs), "an integer >= 0");
    assert.equal(expected(p.defaultThinkingLevel), 'one of "off", "minimal", "low", "medium", "high", "xhigh"');
    assert.equal(expected(p.worktrees.properties.branchPrefix), "a string usable at the start of a git branch name");
    assert.equal(expected(p.defaultTools), 'an array of tool names, each optionally prefixed with "+" or "-"');
    assert.equal(expected(p.skills), 'an array of paths, each optionally prefixed with "+" or "-"');
    assert.equal(expected(p.shellEnv.properties.passThrough), "an array of environment variable names");
  });

  test("the docs' table names types in its own words", () => {
    assert.equal(typeTitle(p.sessionDir), "string or null");
    assert.equal(typeTitle(p.sandbox.properties.mode), '`"workspace"` or `"off"`');
    assert.equal(typeTitle(p.defaultApprovalMode), '`"ask"`, `"autoEdit"` or `"fullAccess"`');
    assert.equal(typeTitle(p.compaction.properties.reserveTokens), "integer >= 0");
  });
});
