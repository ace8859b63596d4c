import assert from "node:assert/strict";
import { test } from "node:test";
import { IgnoreFile } from "../../../src/tools/search/ignore-file.js";

test("ignore files: comments, escapes, trailing spaces, negation, the last matching rule deciding", () => {
  const file = IgnoreFile.parse(["# a comment", "\\#hash", "\\!bang", "spaced   ", "*.log", "!keep.log", "", "\r"].join("\n"));
  assert.equal(file.decide("#hash", false), true);
  assert.equal(file.decide("# a comment", false), undefined);
  assert.equal(file.decide("!bang", false), true);
  assert.equal(file.decide("spaced", false), true);
  assert.equal(file.decide("deep/er/debug.log", false), true);
  assert.equal(file.decide("deep/keep.log", false), false);
  assert.equal(file.decide("notes.txt", false), undefined);
});

test("ignore files: a slash anchors a rule to the file's folder; a trailing slash means folders only", () => {
  const file = IgnoreFile.parse("/root-only\nsrc/gen\nbuild/\ncache/**\n**/tmp\n");
  assert.equal(file.decide("root-only", false), true);
  assert.equal(file.decide("sub/root-only", false), undefined);
  assert.equal(file.decide("src/gen", true), true);
  assert.equal(file.decide("lib/src/gen", true), undefined);
  assert.equal(file.decide("build", true), true);
  assert.equal(file.decide("a/build", true), true);
  assert.equal(file.decide("build", false), undefined);
  assert.equal(file.decide("cache", true), undefined);
  assert.equal(file.decide("cache/x", false), true);
  assert.equal(file.decide("a/b/tmp", true), true);
  assert.equal(file.decide("tmp", false), true);
});

test("ignore files: each path is judged alone, never through its parent folders", () => {
  // The walk never enters an ignored folder, so a path inside one is only
  // judged when the folder was named outright; rg then searches it.
  const file = IgnoreFile.parse("node_modules/\n*.map\n");
  assert.equal(file.decide("node_modules", true), true);
  assert.equal(file.decide("node_modules/lib/index.js", false), undefined);
  assert.equal(file.decide("node_modules/lib/index.js.map", false), true);
});

test("ignore files: globs as rg and fd read them, braces alternatives, [!x] negated, dots ordinary", () => {
  const file = IgnoreFile.parse("{a,b}.txt\n[!x]y.md\n*.cfg\n");
  assert.equal(file.decide("a.txt", false), true);
  assert.equal(file.decide("zy.md", false), true);
  assert.equal(file.decide("xy.md", false), undefined);
  assert.equal(file.decide(".hidden.cfg", false), true);
});
