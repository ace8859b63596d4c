import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createFindTool } from "../../src/tools/find.js";
import { findEngines, ignoreRules, project } from "./search-support.js";
import { rejectsWith, tempDir, textOf } from "./support.js";

for (const engine of findEngines) {
  const findIn = (cwd: string) => createFindTool({ cwd }, engine.options);
  const skip = engine.skip;

  test(`find (${engine.name}) matches globs by name or by path, honours .gitignore, includes hidden files but not .git`, { skip }, async (t) => {
    const dir = await tempDir(t);
    await project(dir);
    const find = findIn(dir);
    assert.equal(textOf(await find.execute("c", { pattern: "*.ts" })), "src/main.ts\nsrc/util/helper.test.ts\nsrc/util/helper.ts");
    assert.equal(textOf(await find.execute("c", { pattern: "src/util/*.test.ts" })), "src/util/helper.test.ts");
    assert.equal(textOf(await find.execute("c", { pattern: "./src/*.ts" })), "src/main.ts");
    assert.equal(textOf(await find.execute("c", { pattern: "**/*.yml" })), ".github/ci.yml");
    assert.equal(textOf(await find.execute("c", { pattern: "util" })), "src/util/");
    assert.equal(textOf(await find.execute("c", { pattern: "[!m]*.ts" })), "src/util/helper.test.ts\nsrc/util/helper.ts");
    assert.equal(textOf(await find.execute("c", { pattern: `${dir}/src/{main,other}.ts` })), "src/main.ts");
    assert.equal(textOf(await find.execute("c", { pattern: "*.log" })), "No files found.");
    assert.equal(
      textOf(await find.execute("c", { pattern: "*" })),
      [".github/", ".github/ci.yml", ".gitignore", "README.md", "src/", "src/main.ts", "src/util/", "src/util/helper.test.ts", "src/util/helper.ts"].join("\n"),
    );
    const below = await findIn(join(dir, "src")).execute("c", { pattern: "*.ts", path: "../src/util" });
    assert.equal(textOf(below), "util/helper.test.ts\nutil/helper.ts");
  });

  test(`find (${engine.name}) honours every ignore file as fd does and lists links without following them`, { skip }, async (t) => {
    const repo = await ignoreRules(await tempDir(t));
    const find = findIn(repo);
    const expected = [
      ".gitignore",
      ".hidden/",
      ".hidden/h.txt",
      ".ignore",
      "a/",
      "a/.gitignore",
      "a/b/",
      "a/b/.gitignore",
      "a/b/deep-kept.txt",
      "a/c/",
      "a/c/.gitignore",
      "a/c/build/",
      "a/c/build/re-kept.md",
      "a/c/plain-kept.md",
      "a/keep-kept.txt",
      "a/root-only-kept.md",
      "bin.dat",
      "kept.log",
      "link-dir",
      "link.txt",
      "logs/",
      "nested/",
      "nested/x-kept.log",
      "top-kept.txt",
    ];
    assert.equal(textOf(await find.execute("c", { pattern: "*" })), expected.join("\n"));
    assert.equal(textOf(await find.execute("c", { pattern: "*.md", path: "a/c" })), "a/c/build/re-kept.md\na/c/plain-kept.md");
    assert.equal(textOf(await find.execute("c", { pattern: "*", path: "build" })), "build/out.txt");
  });

  test(`find (${engine.name}) with a glob-special directory name and a limit`, { skip }, async (t) => {
    const dir = await tempDir(t);
    const odd = join(dir, "we[ir]d {dir}");
    await mkdir(join(odd, "a"), { recursive: true });
    for (let i = 0; i < 30; i++) await writeFile(join(odd, "a", `f${i}.txt`), "");
    const find = findIn(dir);
    const result = await find.execute("c", { pattern: "a/f1*.txt", path: odd, limit: 5 });
    assert.equal(result.details.count, 5);
    assert.equal(result.details.truncated, true);
    assert.match(
      textOf(result),
      /^(we\[ir\]d \{dir\}\/a\/f1\d*\.txt\n){5}\n\[Showing 5 results; there are more\. Narrow the pattern or path, or raise limit\.\]$/,
    );
    await rejectsWith(find.execute("c", { pattern: "*", path: join(odd, "a", "f1.txt") }), "notADirectory");
  });

  test(`find (${engine.name}) stops when aborted`, { skip }, async (t) => {
    const dir = await tempDir(t);
    await project(dir);
    const controller = new AbortController();
    const call = findIn(dir).execute("c", { pattern: "*" }, controller.signal);
    controller.abort();
    await rejectsWith(call, "aborted");
  });
}

test("find without fd on the PATH searches in-process, with no error", async (t) => {
  const dir = await tempDir(t);
  await project(dir);
  const find = createFindTool({ cwd: dir, env: { PATH: "/nonexistent-kc" } });
  assert.equal(textOf(await find.execute("c", { pattern: "*.ts" })), "src/main.ts\nsrc/util/helper.test.ts\nsrc/util/helper.ts");
});
