import assert from "node:assert/strict";
import { test } from "node:test";
import { PathPattern, globToRegExp } from "../../src/resources/glob.js";

test("globs: * and ? stay in a segment, ** spans segments", () => {
  const cases: [string, string, boolean][] = [
    ["*.ts", "a.ts", true],
    ["*.ts", "dir/a.ts", false],
    ["extensions/*.ts", "extensions/a.ts", true],
    ["extensions/?.ts", "extensions/ab.ts", false],
    ["extensions/?.ts", "extensions/a.ts", true],
    ["**/legacy.ts", "legacy.ts", true],
    ["**/legacy.ts", "a/b/legacy.ts", true],
    ["**/legacy.ts", "/abs/path/legacy.ts", true],
    ["skills/**/SKILL.md", "skills/SKILL.md", true],
    ["skills/**/SKILL.md", "skills/a/b/SKILL.md", true],
    ["skills/**", "skills/a/b/SKILL.md", true],
    ["skills/**", "prompts/a.md", false],
    ["a.b", "axb", false],
    ["(x)+[y].md", "(x)+[y].md", true],
  ];
  for (const [glob, path, expected] of cases) assert.equal(globToRegExp(glob).test(path), expected, `${glob} vs ${path}`);
});

test("a pattern matches a path, a containing folder, relative or absolute, with ~", () => {
  const base = "/home/u/.knightcode/agent";
  const home = "/home/u";
  const skill = `${base}/skills/review/SKILL.md`;
  assert.ok(new PathPattern("skills/review/SKILL.md", base, home).matches(skill));
  assert.ok(new PathPattern("skills/review", base, home).matches(skill), "containing folder");
  assert.ok(new PathPattern("./skills/review", base, home).matches(skill));
  assert.ok(new PathPattern(skill, base, home).matches(skill), "absolute");
  assert.ok(new PathPattern("~/.knightcode/agent/skills/*", base, home).matches(skill), "~ glob over the folder");
  assert.ok(new PathPattern("skills/*/SKILL.md", base, home).matches(skill));
  assert.ok(new PathPattern("*", base, home).matches(skill), "a bare * covers the first folder below the base");
  assert.ok(!new PathPattern("skills/rev", base, home).matches(skill), "no prefix matching inside a name");
  assert.ok(!new PathPattern("prompts/*", base, home).matches(skill));
  assert.ok(new PathPattern("../shared/x.ts", base, home).matches("/home/u/.knightcode/shared/x.ts"), "relative paths may leave the base");
  assert.ok(!new PathPattern("*.ts", base, home).matches("/elsewhere/x.ts"), "a one-segment glob is not matched against absolute paths outside the base");
});
