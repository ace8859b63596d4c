import assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createLsTool } from "../../src/tools/ls.js";
import { project } from "./search-support.js";
import { rejectsWith, tempDir, textOf } from "./support.js";

test("ls lists sorted entries with dotfiles, directories and links to them ending in /", async (t) => {
  const dir = await tempDir(t);
  await project(dir);
  await symlink("src", join(dir, "link-to-src"));
  const ls = createLsTool({ cwd: dir });
  assert.equal(textOf(await ls.execute("c", {})), [".git/", ".github/", ".gitignore", "build/", "debug.log", "link-to-src/", "README.md", "src/"].join("\n"));
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
