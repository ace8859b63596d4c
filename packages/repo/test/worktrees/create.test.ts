import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { GitConflictError, NotGitRepoError } from "../../src/git/errors.js";
import { createWorktree } from "../../src/worktrees/create.js";
import { WorktreeError } from "../../src/worktrees/errors.js";
import { readRecord } from "../../src/worktrees/record.js";
import { GIT_ENV, armTraps, files, git, initRepo, scratch, status, write } from "./fixture.js";

const fresh = scratch("worktree-create");
const BINARY = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 0]);

function registered(repo: string): string[] {
  return git(repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
}

describe("createWorktree", () => {
  test("a detached worktree at HEAD under <root>/<4 hex>/<repository folder>, running in the same subfolder, with its record beside it", async () => {
    const base = fresh();
    const repo = initRepo(join(base, "project"), { "src/app/main.ts": "x\n", "README.md": "r\n" });
    const root = join(base, "worktrees");
    const created = await createWorktree({ root, cwd: join(repo, "src", "app"), env: GIT_ENV });
    const { record } = created;
    assert.match(record.path, new RegExp(`^${root}/[0-9a-f]{4}/project$`));
    assert.equal(created.cwd, join(record.path, "src", "app"));
    assert.equal(created.bucketDir, join(record.path, ".."));
    assert.equal(git(record.path, "rev-parse", "HEAD").trim(), git(repo, "rev-parse", "HEAD").trim());
    assert.equal(git(record.path, "rev-parse", "--abbrev-ref", "HEAD").trim(), "HEAD", "detached");
    assert.deepEqual(files(record.path), files(repo));
    assert.equal(status(record.path), "");
    assert.deepEqual(readRecord(created.bucketDir), record);
    assert.equal(record.projectCwd, join(repo, "src", "app"));
    assert.equal(record.checkoutRoot, repo);
    assert.equal(record.repoRoot, join(repo, ".git"));
    assert.equal(record.baseRef, "HEAD");
    assert.equal(record.deleted, false);
    assert.deepEqual(registered(repo), [repo, record.path]);
  });

  test("no hook and no filter driver runs, even a required one", async () => {
    const base = fresh();
    const repo = initRepo(join(base, "project"), { ".gitattributes": "*.txt filter=mark\n", "a.txt": "plain\n" });
    const marks = join(base, "marks");
    armTraps(repo, marks);
    write(repo, { "b.txt": "carried\n", "a.txt": "changed\n" });
    const created = await createWorktree({ root: join(base, "worktrees"), cwd: repo, carryLocalChanges: true, env: GIT_ENV });
    assert.deepEqual(readdirSync(marks), [], "nothing left a mark");
    assert.equal(readFileSync(join(created.record.path, "a.txt"), "utf8"), "changed\n");
    assert.equal(readFileSync(join(created.record.path, "b.txt"), "utf8"), "carried\n");
  });

  test("carryLocalChanges copies staged, unstaged, untracked and binary changes, staged ones staged; the checkout keeps them", async () => {
    const base = fresh();
    const repo = initRepo(join(base, "project"), { "a.txt": "a\n", "b.txt": "b\n", "gone.txt": "g\n", "tool.sh": "echo\n", ".gitignore": "*.log\n" });
    write(repo, { "a.txt": "a staged\n", "new-staged.bin": BINARY });
    git(repo, "add", "a.txt", "new-staged.bin");
    write(repo, { "a.txt": "a staged then edited\n", "b.txt": "b unstaged\n", "untracked/deep.bin": BINARY, "debug.log": "ignored\n" });
    git(repo, "rm", "-q", "gone.txt");
    git(repo, "update-index", "--chmod=+x", "tool.sh");
    const before = { files: files(repo), status: status(repo), index: git(repo, "ls-files", "-s") };
    const { record } = await createWorktree({ root: join(base, "worktrees"), cwd: repo, carryLocalChanges: true, env: GIT_ENV });
    assert.deepEqual({ files: files(repo), status: status(repo), index: git(repo, "ls-files", "-s") }, before, "the checkout is as it was");
    const expected = { ...before.files };
    delete expected["debug.log"];
    assert.deepEqual(files(record.path), expected, "ignored files stay behind");
    assert.equal(status(record.path), before.status.replace("?? debug.log\n", ""));
    assert.equal(git(record.path, "ls-files", "-s"), before.index);
    assert.deepEqual(readFileSync(join(record.path, "untracked", "deep.bin")), BINARY);
  });

  test("carrying onto another base applies the changes there; changes that do not apply leave nothing behind", async () => {
    const base = fresh();
    const repo = initRepo(join(base, "project"), { "a.txt": "1\n2\n3\n4\n5\n6\n7\n8\n", "c.txt": "c\n" });
    const first = git(repo, "rev-parse", "HEAD").trim();
    write(repo, { "c.txt": "c2\n" });
    git(repo, "commit", "-qam", "second");
    write(repo, { "a.txt": "1\n2\n3\n4\n5\n6\n7\neight\n", "new.txt": "n\n" });
    const root = join(base, "worktrees");
    const moved = await createWorktree({ root, cwd: repo, baseRef: first, carryLocalChanges: true, env: GIT_ENV });
    assert.equal(git(moved.record.path, "rev-parse", "HEAD").trim(), first);
    assert.equal(readFileSync(join(moved.record.path, "a.txt"), "utf8"), "1\n2\n3\n4\n5\n6\n7\neight\n");
    assert.equal(readFileSync(join(moved.record.path, "c.txt"), "utf8"), "c\n");
    assert.equal(readFileSync(join(moved.record.path, "new.txt"), "utf8"), "n\n");

    write(repo, { "c.txt": "c3\n" });
    const buckets = readdirSync(root);
    await assert.rejects(createWorktree({ root, cwd: repo, baseRef: first, carryLocalChanges: true, env: GIT_ENV }), (error: unknown) => {
      assert.ok(error instanceof GitConflictError);
      assert.equal(error.reason, "patchFailed");
      return true;
    });
    assert.deepEqual(readdirSync(root), buckets);
    assert.deepEqual(registered(repo), [repo, moved.record.path]);
  });

  test("an unknown base, a folder outside git and a root that cannot be made fail before anything exists", async () => {
    const base = fresh();
    const repo = initRepo(join(base, "project"));
    const root = join(base, "worktrees");
    for (const baseRef of ["no-such-branch", "-x", "HEAD~5"]) {
      await assert.rejects(
        createWorktree({ root, cwd: repo, baseRef, env: GIT_ENV }),
        (error: unknown) => error instanceof WorktreeError && error.code === "invalidParams",
      );
    }
    const outside = join(base, "plain");
    mkdirSync(outside);
    await assert.rejects(createWorktree({ root, cwd: outside, env: { ...GIT_ENV, GIT_CEILING_DIRECTORIES: base } }), NotGitRepoError);
    writeFileSync(join(base, "a-file"), "");
    await assert.rejects(
      createWorktree({ root: join(base, "a-file", "worktrees"), cwd: repo, env: GIT_ENV }),
      (error: unknown) => error instanceof WorktreeError && error.code === "io",
    );
    assert.equal(existsSync(root), false);
    assert.deepEqual(registered(repo), [repo]);
  });

  test("a failure once the folder exists removes the folder, the registration and the root folders it made", async () => {
    const base = fresh();
    const repo = initRepo(join(base, "project"), { sub: "a file at first\n" });
    const first = git(repo, "rev-parse", "HEAD").trim();
    git(repo, "rm", "-q", "sub");
    write(repo, { "sub/x.txt": "x\n" });
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "sub is a folder now");
    mkdirSync(join(repo, "sub", "inner"));
    // At the first commit `sub` is a file: the thread's folder cannot be made in the new worktree.
    const root = join(base, "deep", "worktrees");
    await assert.rejects(
      createWorktree({ root, cwd: join(repo, "sub", "inner"), baseRef: first, env: GIT_ENV }),
      (error: unknown) => error instanceof WorktreeError && error.code === "io",
    );
    assert.equal(existsSync(join(base, "deep")), false);
    assert.deepEqual(registered(repo), [repo]);
    assert.equal(existsSync(join(repo, ".git", "worktrees")) ? readdirSync(join(repo, ".git", "worktrees")).length : 0, 0);
  });
});
