import assert from "node:assert/strict";
import { test } from "node:test";
import { PathPattern, globToRegExp, hasGlobChars } from "../../src/resources/glob.js";

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

test("globs: braces expand, brackets are classes, parentheses and a leading ! are plain text", () => {
  const cases: [string, string, boolean][] = [
    ["skills/{review,deploy}", "skills/review", true],
    ["skills/{review,deploy}", "skills/deploy", true],
    ["skills/{review,deploy}", "skills/other", false],
    ["{extensions,prompts}/*.{ts,md}", "prompts/a.md", true],
    ["{extensions,prompts}/*.{ts,md}", "extensions/a.js", false],
    ["{a,b/c}/x.md", "b/c/x.md", true],
    ["v{1..3}.md", "v2.md", true],
    ["v{1..3}.md", "v4.md", false],
    ["skills/{review}", "skills/{review}", true],
    ["skills/[rd]*", "skills/review", true],
    ["skills/[rd]*", "skills/other", false],
    ["skills/[!r]*", "skills/deploy", true],
    ["skills/[!r]*", "skills/review", false],
    ["skills/[a-c]?", "skills/b1", true],
    ["skills/[a-c]?", "skills/d1", false],
    ["skills/[ab]/x", "skills/a/x", true],
    ["skills/[ab]/x", "skills/ab/x", false],
    ["notes (old).md", "notes (old).md", true],
    ["notes (old).md", "notes old.md", false],
    ["*(old).md", "notes (old).md", true],
    ["!*.md", "!a.md", true],
    ["!*.md", "a.ts", false],
    ["a\\*b", "a*b", true],
    ["a\\*b", "axb", false],
    ["*/SKILL.md", ".hidden/SKILL.md", true],
    ["**/SKILL.md", "a/.b/SKILL.md", true],
  ];
  for (const [glob, path, expected] of cases) assert.equal(globToRegExp(glob).test(path), expected, `${glob} vs ${path}`);
});

test("braces and classes make a pattern a glob and match through PathPattern", () => {
  const base = "/home/u/.knightcode/agent";
  const home = "/home/u";
  const review = `${base}/skills/review/SKILL.md`;
  const deploy = `${base}/skills/deploy/SKILL.md`;
  assert.ok(hasGlobChars("skills/{a,b}") && hasGlobChars("skills/[ab]") && !hasGlobChars("skills/(a)"));
  const either = new PathPattern("skills/{review,deploy}", base, home);
  assert.ok(either.matches(review) && either.matches(deploy));
  assert.ok(!either.matches(`${base}/skills/other/SKILL.md`));
  const notReview = new PathPattern("~/.knightcode/agent/skills/[!r]*", base, home);
  assert.ok(notReview.matches(deploy) && !notReview.matches(review));
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
