import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createGrepTool } from "../../src/tools/grep.js";
import { grepEngines, ignoreRules, project } from "./search-support.js";
import { rejectsWith, tempDir, textOf } from "./support.js";

const sortedLines = (text: string) => text.split("\n").sort();

for (const engine of grepEngines) {
  const grepIn = (cwd: string) => createGrepTool({ cwd }, engine.options);
  const skip = engine.skip;

  test(`grep (${engine.name}) finds matches with paths relative to the cwd, honouring .gitignore and searching hidden files`, { skip }, async (t) => {
    const dir = await tempDir(t);
    await project(dir);
    const result = await grepIn(dir).execute("c", { pattern: "helper\\(" });
    assert.deepEqual(sortedLines(textOf(result)), [
      "src/main.ts:2:   return helper();",
      "src/util/helper.test.ts:1: helper();",
      "src/util/helper.ts:1: export function helper() {",
    ]);
    assert.deepEqual(result.details, { matches: 3, truncated: false });
    assert.equal(textOf(await grepIn(dir).execute("c", { pattern: "run:" })), ".github/ci.yml:1: run: helper");
  });

  test(`grep (${engine.name}) options: ignoreCase, literal, glob, path, context`, { skip }, async (t) => {
    const dir = await tempDir(t);
    await project(dir);
    const grep = grepIn(join(dir, "src"));
    // Outside the cwd, paths show absolute.
    assert.equal(textOf(await grep.execute("c", { pattern: "call helper", ignoreCase: true, path: ".." })), `${dir}/README.md:1: Call Helper() first.`);
    assert.equal(textOf(await grep.execute("c", { pattern: "helper();", literal: true, glob: "*.test.ts" })), "util/helper.test.ts:1: helper();");
    assert.equal(textOf(await grep.execute("c", { pattern: "42", path: "util/helper.ts" })), "util/helper.ts:2:   return 42;");
    assert.equal(
      textOf(await grep.execute("c", { pattern: "42", path: "util", context: 1 })),
      "util/helper.ts-1- export function helper() {\nutil/helper.ts:2:   return 42;\nutil/helper.ts-3- }",
    );
  });

  test(`grep (${engine.name}) context: overlapping windows merge, separate ones get --`, { skip }, async (t) => {
    const dir = await tempDir(t);
    const lines = ["a", "hit 2", "b", "hit 4", "c", "d", "e", "f", "hit 9", "g"];
    await writeFile(join(dir, "f.txt"), `${lines.join("\r\n")}\r\n`);
    // As in rg, a line's text includes its "\r" while matching, and never in the output.
    const text = textOf(await grepIn(dir).execute("c", { pattern: "^hit \\d\\r?$", path: "f.txt", context: 1 }));
    assert.equal(
      text,
      ["f.txt-1- a", "f.txt:2: hit 2", "f.txt-3- b", "f.txt:4: hit 4", "f.txt-5- c", "--", "f.txt-8- f", "f.txt:9: hit 9", "f.txt-10- g"].join("\n"),
    );
    const limited = textOf(await grepIn(dir).execute("c", { pattern: "hit", path: "f.txt", context: 2, limit: 1 }));
    assert.equal(limited, "f.txt-1- a\nf.txt:2: hit 2\nf.txt-3- b\n\n[Stopped at 1 matches; narrow the pattern or path, or raise limit.]");
  });

  test(`grep (${engine.name}) reports no matches plainly and bad patterns and paths as errors`, { skip }, async (t) => {
    const dir = await tempDir(t);
    await project(dir);
    const grep = grepIn(dir);
    assert.equal(textOf(await grep.execute("c", { pattern: "nothing-like-this" })), "No matches found.");
    await rejectsWith(grep.execute("c", { pattern: "(" }), "invalidArgument", /rg failed: regex parse error|not a valid regular expression/);
    await rejectsWith(grep.execute("c", { pattern: "x", path: "missing" }), "notFound", /Path not found: missing/);
    assert.equal(textOf(await grep.execute("c", { pattern: "-x" })), "No matches found.");
  });

  test(`grep (${engine.name}) stops at the match limit and cuts long lines`, { skip }, async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, "many.txt"), Array.from({ length: 500 }, (_, i) => `hit ${i}`).join("\n"));
    await writeFile(join(dir, "wide.txt"), `hit ${"w".repeat(3000)}\n`);
    const grep = grepIn(dir);
    const limited = await grep.execute("c", { pattern: "hit", path: "many.txt", limit: 10 });
    assert.equal(limited.details.matches, 10);
    assert.equal(limited.details.truncated, true);
    assert.match(textOf(limited), /many\.txt:10: hit 9\n\n\[Stopped at 10 matches; narrow the pattern or path, or raise limit\.\]$/);
    const wide = textOf(await grep.execute("c", { pattern: "hit", path: "wide.txt" }));
    assert.match(wide, /^wide\.txt:1: hit w{496} \.\.\. \[line cut: 2504 more characters\]\n\n\[1 line\(s\) cut at 500 characters\.\]$/);
  });

  test(`grep (${engine.name}) stops early across many files at the limit`, { skip }, async (t) => {
    const dir = await tempDir(t);
    for (let d = 0; d < 20; d++) {
      await mkdir(join(dir, `d${d}`));
      for (let f = 0; f < 50; f++) await writeFile(join(dir, `d${d}`, `f${f}.txt`), "hit\n");
    }
    const result = await grepIn(dir).execute("c", { pattern: "hit", limit: 7 });
    assert.deepEqual(result.details, { matches: 7, truncated: true });
    assert.match(textOf(result), /^(d\d+\/f\d+\.txt:1: hit\n){7}\n\[Stopped at 7 matches/);
  });

  test(`grep (${engine.name}) honours .gitignore, .ignore and .git/info/exclude as rg does, and skips binary files and links`, { skip }, async (t) => {
    const repo = await ignoreRules(await tempDir(t));
    const grep = grepIn(repo);
    const kept = [
      ".hidden/h.txt",
      "a/b/deep-kept.txt",
      "a/c/build/re-kept.md",
      "a/c/plain-kept.md",
      "a/keep-kept.txt",
      "a/root-only-kept.md",
      "kept.log",
      "nested/x-kept.log",
      "top-kept.txt",
    ];
    assert.deepEqual(
      sortedLines(textOf(await grep.execute("c", { pattern: "hit" }))),
      kept.map((path) => `${path}:1: hit`),
    );
    // Searching below the repository root still applies the rules of the folders above.
    assert.deepEqual(sortedLines(textOf(await grep.execute("c", { pattern: "hit", path: "a/c" }))), [
      "a/c/build/re-kept.md:1: hit",
      "a/c/plain-kept.md:1: hit",
    ]);
    // A file or folder named outright is searched, ignored or not.
    assert.equal(textOf(await grep.execute("c", { pattern: "hit", path: "debug.log" })), "debug.log:1: hit");
    assert.equal(textOf(await grep.execute("c", { pattern: "hit", path: "build" })), "build/out.txt:1: hit");
  });

  test(`grep (${engine.name}) glob: a match is searched even when ignored, ! excludes, and .git stays out`, { skip }, async (t) => {
    const repo = await ignoreRules(await tempDir(t));
    const grep = grepIn(repo);
    assert.deepEqual(sortedLines(textOf(await grep.execute("c", { pattern: "hit", glob: "*.log" }))), [
      "a/c/note.log:1: hit",
      "debug.log:1: hit",
      "kept.log:1: hit",
      "nested/x-kept.log:1: hit",
    ]);
    assert.deepEqual(sortedLines(textOf(await grep.execute("c", { pattern: "hit", glob: "a/**/*.txt" }))), [
      "a/b/deep-kept.txt:1: hit",
      "a/b/other.txt:1: hit",
      "a/drop.txt:1: hit",
      "a/keep-kept.txt:1: hit",
    ]);
    assert.deepEqual(sortedLines(textOf(await grep.execute("c", { pattern: "hit", glob: "!a" }))), [
      ".hidden/h.txt:1: hit",
      "kept.log:1: hit",
      "nested/x-kept.log:1: hit",
      "top-kept.txt:1: hit",
    ]);
    assert.doesNotMatch(textOf(await grep.execute("c", { pattern: ".", glob: "*" })), /^\.git\//m);
  });

  test(`grep (${engine.name}) stops when aborted`, { skip }, async (t) => {
    const dir = await tempDir(t);
    await project(dir);
    const controller = new AbortController();
    const call = grepIn(dir).execute("c", { pattern: "helper" }, controller.signal);
    controller.abort();
    await rejectsWith(call, "aborted");
  });
}

test("grep without rg on the PATH searches in-process, with no error", async (t) => {
  const dir = await tempDir(t);
  await project(dir);
  const grep = createGrepTool({ cwd: dir, env: { PATH: "/nonexistent-kc" } });
  const result = await grep.execute("c", { pattern: "helper\\(" });
  assert.deepEqual(sortedLines(textOf(result)), [
    "src/main.ts:2:   return helper();",
    "src/util/helper.test.ts:1: helper();",
    "src/util/helper.ts:1: export function helper() {",
  ]);
});

test("grep in-process reads Rust regex spellings: inline flags, \\A and \\z, POSIX classes, named groups", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "f.txt"), 'Alpha 1\nbeta 22\n\tgamma\n"quoted"\n');
  const grep = createGrepTool({ cwd: dir }, { search: "builtin" });
  const run = async (pattern: string) => textOf(await grep.execute("c", { pattern, path: "f.txt" }));
  assert.equal(await run("(?i)^ALPHA"), "f.txt:1: Alpha 1");
  assert.equal(await run("\\A[[:digit:]]*\\z"), "No matches found.");
  assert.equal(await run("[[:alpha:]]+ [[:digit:]]{2}\\z"), "f.txt:2: beta 22");
  assert.equal(await run("^[[:space:]]gamma"), "f.txt:3: \tgamma");
  assert.equal(await run('(?P<q>\\")quoted\\"'), 'f.txt:4: "quoted"');
  assert.equal(await run("\\pL\\pL \\d\\d"), "f.txt:2: beta 22");
  await rejectsWith(grep.execute("c", { pattern: "(?x) a", path: "f.txt" }), "invalidArgument", /inline flag \(\?x\)/);
});
