import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test, type TestContext } from "node:test";
import { parseConfig } from "../../src/git/config-file.js";
import { hookPlaceOf, hookPlacesOf, repositoryAt } from "../../src/git/hook-places.js";

/** A temporary folder with a home, a project and a writer; git configured only by what a test writes. */
function setup(t: TestContext) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "kc-hook-places-")));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, "home");
  const repo = join(root, "repo");
  mkdirSync(home, { recursive: true });
  mkdirSync(repo, { recursive: true });
  const env = { HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_SYSTEM: join(root, "no-system"), PATH: process.env.PATH };
  const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env, encoding: "utf8" });
  const write = (files: Record<string, string>, base = repo) => {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(base, path)), { recursive: true });
      writeFileSync(join(base, path), content);
    }
  };
  const options = { home, env };
  return { root, home, repo, git, write, options };
}

test("git's config syntax: headers with keys on their line, quotes, escapes, comments, continuations and old subsections", () => {
  const text = [
    "[core] hooksPath = .husky/_ ; set by husky",
    '[Core]\n\tHOOKSPATH = "a b"  # kept blanks',
    '[core]\n\thookspath = with\\\\back\\"quote',
    "[core]\n\thooksPath = long\\\n-continued",
    '[includeIf "gitdir:~/Work/"]\n\tpath = work.inc',
    "[branch.Main]\n\tremote",
    "[not a header",
    "  ; only a comment",
  ].join("\n");
  const entries = parseConfig(text, "f");
  assert.deepEqual(
    entries.filter((e) => e.section === "core").map((e) => e.value),
    [".husky/_", "a b", 'with\\back"quote', "long-continued"],
  );
  assert.deepEqual(
    entries.find((e) => e.key === "path"),
    { section: "includeif.gitdir:~/Work/", key: "path", value: "work.inc", file: "f" },
  );
  assert.deepEqual(
    entries.find((e) => e.key === "remote"),
    { section: "branch.main", key: "remote", value: undefined, file: "f" },
  );
});

test("every core.hooksPath git could read names a hooks folder: the repository's, an included file's, the global one, relative to the work tree", (t) => {
  const { home, repo, git, write, options } = setup(t);
  git(repo, "init", "-q");
  git(repo, "config", "core.hooksPath", "tools/hooks");
  write(
    {
      ".gitconfig": '[includeIf "gitdir:/elsewhere/"]\n\tpath = ~/more.inc\n[core]\n\thooksPath = .githooks\n',
      "more.inc": "[core]\n\thooksPath = ~/global-hooks\n",
    },
    home,
  );
  const shape = repositoryAt(repo)!;
  const folders = hookPlacesOf(shape, options)
    .filter((place) => place.folder)
    .map((place) => place.path);
  for (const expected of [join(repo, ".git", "hooks"), join(repo, "tools", "hooks"), join(repo, ".githooks"), join(home, "global-hooks")]) {
    assert.ok(folders.includes(expected), `${expected} in ${folders.join(", ")}`);
  }
  assert.equal(hookPlaceOf(join(repo, "tools", "hooks", "pre-commit"), [], options)?.folder, true);
  assert.match(hookPlaceOf(join(repo, ".githooks", "x"), [], options)?.why ?? "", /\.gitconfig/);
  assert.equal(hookPlaceOf(join(repo, "tools", "other.sh"), [], options), undefined);
});

test("husky: the stub folder's parent, and the files the stubs source through $0's folder, are hook places", (t) => {
  const { repo, git, write, options } = setup(t);
  git(repo, "init", "-q");
  git(repo, "config", "core.hooksPath", ".husky/_");
  write({
    ".husky/_/pre-commit": `#!/usr/bin/env sh\n. "\${0%/*}/h"\n`,
    ".husky/_/h": `#!/usr/bin/env sh\n. "$(dirname -- "$0")/../../scripts/env.sh"\n`,
    "scripts/env.sh": `. "$(dirname "$0")/../../scripts/more/"\n`,
  });
  const places = hookPlacesOf(repositoryAt(repo)!, options);
  const at = (rel: string) => places.find((place) => place.path === join(repo, rel));
  assert.equal(at(".husky/_")?.folder, true);
  assert.equal(at(".husky")?.folder, true, "husky 9 runs .husky/<hook> from the stubs in .husky/_");
  assert.equal(at("scripts/env.sh")?.folder, false, "a file the runner sources");
  assert.equal(at("scripts/more")?.folder, true, "what a sourced file names through $0 counts too");
  assert.equal(hookPlaceOf(join(repo, "scripts", "unrelated.sh"), [], options), undefined);
});

test("a linked worktree's hooks are its common folder's, and its own config.worktree counts", (t) => {
  const { root, repo, git, write, options } = setup(t);
  git(repo, "init", "-q");
  write({ "a.txt": "a" });
  git(repo, "add", ".");
  git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a");
  const linked = join(root, "linked");
  git(repo, "worktree", "add", "-q", linked);
  const shape = repositoryAt(linked)!;
  assert.equal(shape.commonDir, join(repo, ".git"));
  writeFileSync(join(shape.gitDir, "config.worktree"), "[core]\n\thooksPath = wt-hooks\n");
  const folders = hookPlacesOf(shape, options).map((place) => place.path);
  assert.ok(folders.includes(join(repo, ".git", "hooks")));
  assert.ok(folders.includes(join(linked, "wt-hooks")), "relative to the linked worktree's root");
});
