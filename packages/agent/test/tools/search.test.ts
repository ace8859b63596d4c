import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { createFindTool, createGrepTool, createLsTool } from "../../src/tools/index.js";
import { rejectsWith, tempDir, textOf } from "./support.js";

/** A git repository with ignored, hidden and nested files. */
async function project(dir: string): Promise<void> {
  spawnSync("git", ["init", "-q"], { cwd: dir });
  const files: Record<string, string> = {
    ".gitignore": "build/\n*.log\n",
    "src/main.ts": "export function main() {\n  return helper();\n}\n",
    "src/util/helper.ts": "export function helper() {\n  return 42;\n}\n",
    "src/util/helper.test.ts": "helper();\n",
    ".github/ci.yml": "run: helper\n",
    "build/out.js": "function helper() {}\n",
    "debug.log": "helper called\n",
    "README.md": "Call Helper() first.\n",
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, dirname(path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

const noTools = { PATH: "/nonexistent-kc" };

test("grep finds matches with paths relative to the cwd, honouring .gitignore and searching hidden files", async (t) => {
  const dir = await tempDir(t);
  await project(dir);
  const result = await createGrepTool({ cwd: dir }).execute("c", { pattern: "helper\\(" });
  const lines = textOf(result).split("\n").sort();
  assert.deepEqual(lines, ["src/main.ts:2:   return helper();", "src/util/helper.test.ts:1: helper();", "src/util/helper.ts:1: export function helper() {"]);
  assert.deepEqual(result.details, { matches: 3, truncated: false });
  const hidden = await createGrepTool({ cwd: dir }).execute("c", { pattern: "run:" });
  assert.equal(textOf(hidden), ".github/ci.yml:1: run: helper");
});

test("grep options: ignoreCase, literal, glob, path, context", async (t) => {
  const dir = await tempDir(t);
  await project(dir);
  const grep = createGrepTool({ cwd: join(dir, "src") });
  // Outside the cwd, paths show absolute.
  assert.equal(textOf(await grep.execute("c", { pattern: "call helper", ignoreCase: true, path: ".." })), `${dir}/README.md:1: Call Helper() first.`);
  assert.equal(textOf(await grep.execute("c", { pattern: "helper();", literal: true, glob: "*.test.ts" })), "util/helper.test.ts:1: helper();");
  assert.equal(textOf(await grep.execute("c", { pattern: "42", path: "util/helper.ts" })), "util/helper.ts:2:   return 42;");
  assert.equal(
    textOf(await grep.execute("c", { pattern: "42", path: "util", context: 1 })),
    "util/helper.ts-1- export function helper() {\nutil/helper.ts:2:   return 42;\nutil/helper.ts-3- }",
  );
});

test("grep reports no matches plainly and bad patterns and paths as errors", async (t) => {
  const dir = await tempDir(t);
  await project(dir);
  const grep = createGrepTool({ cwd: dir });
  assert.equal(textOf(await grep.execute("c", { pattern: "nothing-like-this" })), "No matches found.");
  await rejectsWith(grep.execute("c", { pattern: "(" }), "invalidArgument", /rg failed: regex parse error/);
  await rejectsWith(grep.execute("c", { pattern: "x", path: "missing" }), "notFound", /Path not found: missing/);
  assert.equal(textOf(await grep.execute("c", { pattern: "-x" })), "No matches found.");
});

test("grep stops at the match limit and cuts long lines", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "many.txt"), Array.from({ length: 500 }, (_, i) => `hit ${i}`).join("\n"));
  await writeFile(join(dir, "wide.txt"), `hit ${"w".repeat(3000)}\n`);
  const grep = createGrepTool({ cwd: dir });
  const limited = await grep.execute("c", { pattern: "hit", path: "many.txt", limit: 10 });
  assert.equal(limited.details.matches, 10);
  assert.equal(limited.details.truncated, true);
  assert.match(textOf(limited), /many\.txt:10: hit 9\n\n\[Stopped at 10 matches; narrow the pattern or path, or raise limit\.\]$/);
  const wide = textOf(await grep.execute("c", { pattern: "hit", path: "wide.txt" }));
  assert.match(wide, /^wide\.txt:1: hit w{496} \.\.\. \[line cut: 2504 more characters\]\n\n\[1 line\(s\) cut at 500 characters\.\]$/);
});

test("find matches globs by name or by path, honours .gitignore, includes hidden files but not .git", async (t) => {
  const dir = await tempDir(t);
  await project(dir);
  const find = createFindTool({ cwd: dir });
  assert.equal(textOf(await find.execute("c", { pattern: "*.ts" })), "src/main.ts\nsrc/util/helper.test.ts\nsrc/util/helper.ts");
  assert.equal(textOf(await find.execute("c", { pattern: "src/util/*.test.ts" })), "src/util/helper.test.ts");
  assert.equal(textOf(await find.execute("c", { pattern: "**/*.yml" })), ".github/ci.yml");
  assert.equal(textOf(await find.execute("c", { pattern: "util" })), "src/util/");
  assert.equal(textOf(await find.execute("c", { pattern: "*.log" })), "No files found.");
  const all = textOf(await find.execute("c", { pattern: "*" }));
  assert.ok(!all.includes(".git/") && !all.includes("build") && all.includes(".gitignore"), all);
  const below = await createFindTool({ cwd: join(dir, "src") }).execute("c", { pattern: "*.ts", path: "../src/util" });
  assert.equal(textOf(below), "util/helper.test.ts\nutil/helper.ts");
});

test("find with a glob-special directory name and a limit", async (t) => {
  const dir = await tempDir(t);
  const odd = join(dir, "we[ir]d {dir}");
  await mkdir(join(odd, "a"), { recursive: true });
  for (let i = 0; i < 30; i++) await writeFile(join(odd, "a", `f${i}.txt`), "");
  const find = createFindTool({ cwd: dir });
  const result = await find.execute("c", { pattern: "a/f1*.txt", path: odd, limit: 5 });
  assert.equal(result.details.count, 5);
  assert.equal(result.details.truncated, true);
  assert.match(textOf(result), /^(we\[ir\]d \{dir\}\/a\/f1\d*\.txt\n){5}\n\[Showing 5 results; there are more\. Narrow the pattern or path, or raise limit\.\]$/);
  await rejectsWith(find.execute("c", { pattern: "*", path: join(odd, "a", "f1.txt") }), "notADirectory");
});

test("grep and find report toolMissing when rg or fd is not on PATH", async (t) => {
  const dir = await tempDir(t);
  await rejectsWith(createGrepTool({ cwd: dir, env: noTools }).execute("c", { pattern: "x" }), "toolMissing", /ripgrep \(rg\) is not installed/);
  await rejectsWith(createFindTool({ cwd: dir, env: noTools }).execute("c", { pattern: "*" }), "toolMissing", /fd is not installed/);
});

test("ls lists sorted entries with dotfiles, directories and links to them ending in /", async (t) => {
  const dir = await tempDir(t);
  await project(dir);
  await symlink("src", join(dir, "link-to-src"));
  const ls = createLsTool({ cwd: dir });
  assert.equal(
    textOf(await ls.execute("c", {})),
    [".git/", ".github/", ".gitignore", "build/", "debug.log", "link-to-src/", "README.md", "src/"].join("\n"),
  );
  assert.equal(textOf(await ls.execute("c", { path: "src/util" })), "helper.test.ts\nhelper.ts");
  const limited = await ls.execute("c", { limit: 3 });
  assert.equal(textOf(limited), ".git/\n.github/\n.gitignore\n\n[Showing 3 of 8 entries. Use find to search, or raise limit.]");
  assert.deepEqual(limited.details, { count: 3, truncated: true });
});

test("ls errors on missing paths and files, and says when a directory is empty", async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, "empty"));
  await writeFile(join(dir, "f.txt"), "");
  const ls = createLsTool({ cwd: dir });
  assert.equal(textOf(await ls.execute("c", { path: "empty" })), "(empty directory)");
  await rejectsWith(ls.execute("c", { path: "nope" }), "notFound", /Path not found: nope/);
  await rejectsWith(ls.execute("c", { path: "f.txt" }), "notADirectory", /f\.txt is not a directory/);
});
