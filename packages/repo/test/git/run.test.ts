import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { GitCommandError, NotGitRepoError } from "../../src/git/errors.js";
import { discoverRepo, repoRelative } from "../../src/git/repo.js";
import { gitText, noUserCodeConfig, runGit } from "../../src/git/run.js";
import { tempRoot } from "../settings/fixtures.js";

const fresh = tempRoot("git-run");

function initRepo(): string {
  const dir = realpathSync(fresh());
  execFileSync("git", ["init", "-q", "-b", "main", dir]);
  execFileSync("git", ["-C", dir, "config", "user.email", "t@example.com"]);
  execFileSync("git", ["-C", dir, "config", "user.name", "T"]);
  return dir;
}

describe("git runner", () => {
  test("discovers the working tree, its git folders and the subfolder asked about", async () => {
    const root = initRepo();
    mkdirSync(join(root, "src", "deep"), { recursive: true });
    const info = await discoverRepo(join(root, "src", "deep"));
    assert.equal(info.root, root);
    assert.equal(info.prefix, "src/deep");
    assert.equal(info.gitDir, join(root, ".git"));
    assert.equal(info.commonDir, join(root, ".git"));
    assert.equal(info.linked, false);
  });

  test("a folder outside any repository, and the inside of .git, are not git working trees", async () => {
    await assert.rejects(discoverRepo(realpathSync(fresh())), NotGitRepoError);
    const root = initRepo();
    await assert.rejects(discoverRepo(join(root, ".git")), NotGitRepoError);
  });

  test("a repository found once is found again without starting git", async () => {
    const root = initRepo();
    const first = await discoverRepo(root);
    const noGit = { PATH: realpathSync(fresh()) };
    assert.deepEqual(await discoverRepo(root, noGit), first);
    await assert.rejects(discoverRepo(initRepo(), noGit), (error: unknown) => error instanceof GitCommandError && error.gitMissing);
  });

  test("a remembered repository is looked for again once what git's walk reads has changed", async () => {
    const root = initRepo();
    const sub = join(root, "sub");
    mkdirSync(sub);
    assert.equal((await discoverRepo(sub)).root, root);
    execFileSync("git", ["init", "-q", sub]);
    assert.equal((await discoverRepo(sub)).root, sub, "a .git between the folder and the root");
    assert.equal((await discoverRepo(root)).root, root);
    execFileSync("git", ["-C", root, "config", "core.bare", "true"]);
    await assert.rejects(discoverRepo(root), NotGitRepoError, "the configuration made the repository bare");
    const other = initRepo();
    assert.equal((await discoverRepo(other)).root, other);
    rmSync(join(other, ".git"), { recursive: true });
    await assert.rejects(discoverRepo(other), NotGitRepoError, "its .git is gone");
  });

  test("the caller's GIT_DIR, GIT_INDEX_FILE and GIT_WORK_TREE point nowhere", async () => {
    const root = initRepo();
    const other = initRepo();
    const env = { ...process.env, GIT_DIR: join(other, ".git"), GIT_WORK_TREE: other, GIT_INDEX_FILE: join(other, "bogus-index") };
    const info = await discoverRepo(root, env);
    assert.equal(info.root, root);
  });

  test("a failure carries git's message; an allowed exit code is an answer", async () => {
    const root = initRepo();
    await assert.rejects(runGit(["rev-parse", "--verify", "no-such-ref"], { cwd: root }), (error: unknown) => {
      assert.ok(error instanceof GitCommandError);
      assert.equal(error.code, 128);
      assert.match(error.stderr, /no-such-ref|Needed a single revision/);
      return true;
    });
    writeFileSync(join(root, "a.txt"), "a\n");
    const quiet = await runGit(["diff", "--no-index", "--quiet", "/dev/null", "a.txt"], { cwd: root, okCodes: [1] });
    assert.equal(quiet.code, 1);
  });

  test("stdin reaches git, and output past the bound stops the command", async () => {
    const root = initRepo();
    const id = (await gitText(["hash-object", "--stdin"], { cwd: root, input: "hello\n" })).trim();
    assert.equal(id, "ce013625030ba8dba906f756967f9e9ca394464a");
    writeFileSync(join(root, "big.txt"), "x".repeat(10_000));
    await assert.rejects(runGit(["cat-file", "-p", "HEAD:big.txt"], { cwd: root, maxOutput: 10 }), GitCommandError);
    execFileSync("git", ["-C", root, "add", "big.txt"]);
    execFileSync("git", ["-C", root, "commit", "-qm", "big"]);
    await assert.rejects(runGit(["cat-file", "-p", "HEAD:big.txt"], { cwd: root, maxOutput: 10 }), /more than 10 bytes/);
  });

  test("the no-user-code configuration switches off hooks and every configured filter driver", async () => {
    const root = initRepo();
    execFileSync("git", ["-C", root, "config", "filter.evil.smudge", "touch /tmp/never"]);
    execFileSync("git", ["-C", root, "config", "filter.lfs.process", "git-lfs filter-process"]);
    const config = await noUserCodeConfig(root);
    const map = new Map(config);
    assert.equal(map.get("core.hooksPath"), "/dev/null");
    assert.equal(map.get("filter.evil.smudge"), "");
    assert.equal(map.get("filter.lfs.process"), "");
    assert.equal(map.get("filter.lfs.required"), "false");
  });

  test("paths relative to the root; a path that leaves it is refused", () => {
    assert.equal(repoRelative("/r", "src/a.ts"), "src/a.ts");
    assert.equal(repoRelative("/r", "/r/src/a.ts"), "src/a.ts");
    assert.equal(repoRelative("/r", "..x/a"), "..x/a");
    assert.equal(repoRelative("/r", "../etc/passwd"), undefined);
    assert.equal(repoRelative("/r", "/etc/passwd"), undefined);
    assert.equal(repoRelative("/r", "/r"), "");
  });
});
