import assert from "node:assert/strict";
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { GitConflictError } from "../../src/git/errors.js";
import { commitPlan, cutMiddle, planCommit, planDiff } from "../../src/git/ops/commit.js";
import { GitRequestError } from "../../src/git/ops/errors.js";
import { readStatus } from "../../src/git/ops/status.js";
import { divergeBranches, repoFactory, type TestRepo } from "./ops-fixtures.js";

const newRepo = repoFactory("git-ops");

/** The index's bytes and times: a read must leave all of them alone. */
function indexState(repo: TestRepo): string {
  const file = join(repo.root, ".git", "index");
  const stat = statSync(file);
  return `${readFileSync(file).toString("hex")}:${stat.mtimeMs}:${stat.ino}`;
}

/** Files written a while ago (racily clean no more) then touched: git sees a stale index and would refresh it. */
function makeIndexStale(repo: TestRepo, path: string): void {
  const old = new Date(Date.now() - 60_000);
  utimesSync(join(repo.root, path), old, old);
  repo.git("update-index", "--refresh");
  const now = new Date();
  utimesSync(join(repo.root, path), now, now);
}

describe("git status", () => {
  test("counts staged, unstaged, untracked (each file) and renamed files; the branch and no operation", async () => {
    const repo = newRepo();
    repo.commit("base", { "a.txt": "a\n", "b.txt": "b\n", "old.txt": "same content for rename\n" });
    repo.write("a.txt", "a2\n");
    repo.git("add", "a.txt");
    repo.write("a.txt", "a3\n");
    repo.write("b.txt", "b2\n");
    repo.git("mv", "old.txt", "new.txt");
    repo.write("fresh/one.txt", "1");
    repo.write("fresh/deep/two.txt", "2");
    const status = await readStatus(await repo.context());
    assert.deepEqual(status, { branch: "main", upstream: null, ahead: 0, behind: 0, staged: 2, unstaged: 2, untracked: 2, conflicted: 0, operation: null });
  });

  test("a detached HEAD has no branch, and a stale index is not written", async () => {
    const repo = newRepo();
    const first = repo.commit("one", { "a.txt": "a\n" });
    repo.commit("two", { "a.txt": "b\n" });
    repo.git("checkout", "-q", first);
    makeIndexStale(repo, "a.txt");
    const before = indexState(repo);
    const status = await readStatus(await repo.context());
    assert.equal(status.branch, null);
    assert.equal(status.unstaged, 0);
    assert.equal(indexState(repo), before, "git/status wrote the index");
  });

  test("upstream, ahead and behind", async () => {
    const remote = newRepo({ bare: true });
    const repo = newRepo();
    repo.commit("one", { "a.txt": "1" });
    repo.git("remote", "add", "origin", remote.root);
    repo.git("push", "-q", "-u", "origin", "main");
    repo.commit("two", { "a.txt": "2" });
    repo.commit("three", { "a.txt": "3" });
    const status = await readStatus(await repo.context());
    assert.equal(status.upstream, "origin/main");
    assert.equal(status.ahead, 2);
    assert.equal(status.behind, 0);
  });

  test("operations in progress: a conflicted merge, a cherry-pick, a revert, a rebase, a bisect", async () => {
    const conflicted = () => {
      const repo = newRepo();
      return { repo, theirs: divergeBranches(repo) };
    };
    const merge = conflicted();
    assert.throws(() => merge.repo.git("merge", "-q", "other"));
    const merging = await readStatus(await merge.repo.context());
    assert.equal(merging.operation, "merge");
    assert.equal(merging.conflicted, 1);

    const pick = conflicted();
    assert.throws(() => pick.repo.git("cherry-pick", pick.theirs));
    assert.equal((await readStatus(await pick.repo.context())).operation, "cherryPick");

    const rebase = conflicted();
    assert.throws(() => rebase.repo.git("rebase", "-q", "other"));
    assert.equal((await readStatus(await rebase.repo.context())).operation, "rebase");

    const revert = newRepo();
    revert.commit("one", { "f.txt": "1\n" });
    const two = revert.commit("two", { "f.txt": "2\n" });
    revert.commit("three", { "f.txt": "3\n" });
    assert.throws(() => revert.git("revert", "--no-edit", two));
    assert.equal((await readStatus(await revert.context())).operation, "revert");

    const bisect = newRepo();
    bisect.commit("one");
    bisect.git("bisect", "start");
    assert.equal((await readStatus(await bisect.context())).operation, "bisect");
  });
});

describe("git commit", () => {
  test("includeUnstaged stages every change in a copy first: the user's index is untouched until the commit", async () => {
    const repo = newRepo();
    repo.commit("base", { "a.txt": "a\n" });
    repo.write("a.txt", "changed\n");
    repo.write("new.txt", "new\n");
    const ctx = await repo.context();
    const before = indexState(repo);
    const plan = await planCommit(ctx, true);
    const diff = await planDiff(ctx, plan);
    assert.equal(indexState(repo), before, "planning wrote the index");
    assert.match(diff, /new\.txt/);
    assert.match(diff, /\+changed/);
    const result = await commitPlan(ctx, plan, "feat: change a and add new\n\nBody line.");
    assert.match(result.sha, /^[0-9a-f]{40}$/);
    assert.equal(result.message, "feat: change a and add new\n\nBody line.");
    assert.equal(repo.git("status", "--porcelain"), "");
    assert.equal(repo.git("show", "HEAD:new.txt"), "new\n");
  });

  test("without includeUnstaged only the staged change goes in", async () => {
    const repo = newRepo();
    repo.commit("base", { "a.txt": "a\n", "b.txt": "b\n" });
    repo.write("a.txt", "a2\n");
    repo.write("b.txt", "b2\n");
    repo.git("add", "a.txt");
    const ctx = await repo.context();
    await commitPlan(ctx, await planCommit(ctx, false), "fix: a");
    assert.equal(repo.git("show", "HEAD:b.txt"), "b\n");
    assert.equal(repo.git("status", "--porcelain").trim(), "M b.txt");
  });

  test("nothing to commit, on a new repository as on an old one", async () => {
    const empty = newRepo();
    await assert.rejects(planCommit(await empty.context(), true), GitRequestError);
    const repo = newRepo();
    repo.commit("base", { "a.txt": "a\n" });
    repo.write("a.txt", "a2\n");
    await assert.rejects(planCommit(await repo.context(), false), /no change is staged/);
  });

  test("the first commit of a repository", async () => {
    const repo = newRepo();
    repo.write("a.txt", "a\n");
    const ctx = await repo.context();
    const result = await commitPlan(ctx, await planCommit(ctx, true), "chore: start");
    assert.equal(repo.git("rev-parse", "HEAD").trim(), result.sha);
  });

  test("a change staged, or HEAD moved, after the plan: concurrentChange, nothing committed", async () => {
    const repo = newRepo();
    const base = repo.commit("base", { "a.txt": "a\n" });
    repo.write("a.txt", "a2\n");
    repo.git("add", "a.txt");
    const ctx = await repo.context();
    const plan = await planCommit(ctx, false);
    repo.write("other.txt", "sneaked in\n");
    repo.git("add", "other.txt");
    await assert.rejects(commitPlan(ctx, plan, "fix: a"), (error: unknown) => {
      assert.ok(error instanceof GitConflictError);
      assert.equal(error.reason, "concurrentChange");
      assert.deepEqual(error.details.paths, ["other.txt"]);
      return true;
    });
    assert.equal(repo.git("rev-parse", "HEAD").trim(), base);

    const moved = await planCommit(ctx, false);
    repo.git("commit", "-q", "-m", "elsewhere");
    await assert.rejects(commitPlan(ctx, moved, "fix: a"), (error: unknown) => error instanceof GitConflictError && error.reason === "concurrentChange");
  });

  test("unresolved conflicts refuse the commit, naming the files", async () => {
    const repo = newRepo();
    divergeBranches(repo);
    assert.throws(() => repo.git("merge", "-q", "other"));
    await assert.rejects(planCommit(await repo.context(), true), (error: unknown) => {
      assert.ok(error instanceof GitConflictError);
      assert.equal(error.reason, "localChanges");
      assert.deepEqual(error.details.paths, ["f.txt"]);
      return true;
    });
  });

  test("the diff shown to the model keeps its head and tail within the bound", async () => {
    const repo = newRepo();
    repo.commit("base");
    repo.write("first.txt", "FIRST\n");
    repo.write("huge.txt", "x".repeat(200) + "\n".repeat(1) + Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n"));
    repo.write("zzz-last.txt", "LAST\n");
    const ctx = await repo.context();
    const diff = await planDiff(ctx, await planCommit(ctx, true), 4096);
    assert.ok(diff.length < 4200);
    assert.match(diff, /first\.txt/);
    assert.match(diff, /\+LAST/);
    assert.match(diff, /characters cut/);
    assert.equal(cutMiddle("short", 10), "short");
  });

  test("the user's hooks run, and a refusing hook's output comes back", async () => {
    const repo = newRepo();
    repo.commit("base");
    const hook = join(repo.root, ".git", "hooks", "pre-commit");
    writeFileSync(hook, "#!/bin/sh\necho 'lint failed: no semicolons' >&2\nexit 1\n", { mode: 0o755 });
    repo.write("a.txt", "a\n");
    const ctx = await repo.context();
    await assert.rejects(commitPlan(ctx, await planCommit(ctx, true), "feat: a"), (error: unknown) => {
      assert.equal((error as Error).name, "CommandRefusedError");
      assert.match((error as { output: string }).output, /lint failed/);
      return true;
    });
  });
});
