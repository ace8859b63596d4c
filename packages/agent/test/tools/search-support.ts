import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { SearchToolOptions } from "../../src/tools/search/engine.js";
import { findExecutable } from "@knightcode/system/util/executable";

/** One way grep or find can search, and why a test of it is skipped here. */
export interface SearchEngine {
  name: string;
  options: SearchToolOptions;
  skip: string | false;
}

async function engines(names: readonly string[], binary: string): Promise<SearchEngine[]> {
  const found = await findExecutable(names, process.env);
  return [
    { name: "in-process", options: { search: "builtin" }, skip: false },
    { name: binary, options: { search: "auto" }, skip: found === undefined ? `${binary} is not on PATH` : false },
  ];
}

/** grep in-process, always, and through rg where it is installed. */
export const grepEngines = await engines(["rg"], "rg");
/** find in-process, always, and through fd where it is installed. */
export const findEngines = await engines(["fd", "fdfind"], "fd");

/** Writes `files` (path to content) below `dir`; a `null` content makes a git repository there instead. */
export async function writeTree(dir: string, files: Record<string, string | null>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const at = join(dir, path);
    if (content === null) {
      await mkdir(at, { recursive: true });
      const init = spawnSync("git", ["init", "-q"], { cwd: at, encoding: "utf8" });
      assert.equal(init.status, 0, init.stderr);
    } else {
      await mkdir(dirname(at), { recursive: true });
      await writeFile(at, content);
    }
  }
}

/** A git repository with ignored, hidden and nested files. */
export async function project(dir: string): Promise<void> {
  await writeTree(dir, {
    ".": null,
    ".gitignore": "build/\n*.log\n",
    "src/main.ts": "export function main() {\n  return helper();\n}\n",
    "src/util/helper.ts": "export function helper() {\n  return 42;\n}\n",
    "src/util/helper.test.ts": "helper();\n",
    ".github/ci.yml": "run: helper\n",
    "build/out.js": "function helper() {}\n",
    "debug.log": "helper called\n",
    "README.md": "Call Helper() first.\n",
  });
}

/**
 * Every kind of ignore rule rg and fd honour, in `<dir>/outer/repo`; each
 * file holds "hit". Files named `*kept*`, or in `.hidden`, are searched.
 */
export async function ignoreRules(dir: string): Promise<string> {
  const repo = join(dir, "outer", "repo");
  await writeTree(dir, {
    // Above the repository: not its rules, but .ignore files count at any height.
    "outer/.gitignore": "top-kept.txt\n",
    "outer/.ignore": "dot-above.md\n",
    "outer/repo/dot-above.md": "hit\n",
    "outer/repo": null,
    "outer/repo/.gitignore": "*.log\nbuild/\n/root-only.md\n/logs/**\n",
    "outer/repo/.git/info/exclude": "excluded.txt\n",
    // .ignore beats .gitignore: this takes one *.log back.
    "outer/repo/.ignore": "dot-ignored.txt\n!kept.log\n",
    "outer/repo/top-kept.txt": "hit\n",
    "outer/repo/root-only.md": "hit\n",
    "outer/repo/excluded.txt": "hit\n",
    "outer/repo/dot-ignored.txt": "hit\n",
    "outer/repo/kept.log": "hit\n",
    "outer/repo/debug.log": "hit\n",
    "outer/repo/build/out.txt": "hit\n",
    "outer/repo/.hidden/h.txt": "hit\n",
    "outer/repo/bin.dat": "hit\0\n",
    "outer/repo/a/.gitignore": "*.txt\n!keep-kept.txt\n",
    "outer/repo/a/keep-kept.txt": "hit\n",
    "outer/repo/a/drop.txt": "hit\n",
    "outer/repo/a/root-only-kept.md": "hit\n",
    // The deepest file decides: a/.gitignore drops *.txt, this takes one back.
    "outer/repo/a/b/.gitignore": "!deep-kept.txt\n",
    "outer/repo/a/b/deep-kept.txt": "hit\n",
    "outer/repo/a/b/other.txt": "hit\n",
    "outer/repo/a/c/note.log": "hit\n",
    "outer/repo/a/c/plain-kept.md": "hit\n",
    // A closer file takes back a folder a farther one ignored.
    "outer/repo/a/c/.gitignore": "!build/\n",
    "outer/repo/a/c/build/re-kept.md": "hit\n",
    // Everything inside, but not the folder itself.
    "outer/repo/logs/l.md": "hit\n",
    // A repository inside the repository starts afresh.
    "outer/repo/nested": null,
    "outer/repo/nested/x-kept.log": "hit\n",
  });
  await symlink("top-kept.txt", join(repo, "link.txt"));
  await symlink("a", join(repo, "link-dir"));
  return repo;
}
