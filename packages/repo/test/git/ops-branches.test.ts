import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { GitConflictError } from "../../src/git/errors.js";
import { createBranch, listBranches, switchBranch } from "../../src/git/ops/branches.js";
import { GitRequestError } from "../../src/git/ops/errors.js";
import { readLog, resolveLogBase } from "../../src/git/ops/log.js";
import { divergeBranches, repoFactory } from "./ops-fixtures.js";

const newRepo = repoFactory("git-ops-branches");

const conflictOf = (reason: string, paths?: string[]) => (error: unknown) => {
  assert.ok(error instanceof GitConflictError, String(error));
  assert.equal(error.reason, reason);
  if (paths) assert.deepEqual(error.details.paths, paths);
  return true;
};

describe("branches", () => {
  test("lists local branches with their heads, upstreams and the current one", async () => {
    const remote = newRepo({ bare: true });
    const repo = newRepo();
    const main = repo.commit("one");
    repo.git("remote", "add", "origin", remote.root);
    repo.git("push", "-q", "-u", "origin", "main");
    repo.git("branch", "feature/x");
    const listed = await listBranches(await repo.context());
    assert.equal(listed.current, "main");
    const byName = new Map(listed.branches.map((b) => [b.name, b]));
    assert.deepEqual(byName.get("main"), { name: "main", head: main, upstream: "origin/main", current: true });
    assert.deepEqual(byName.get("feature/x"), { name: "feature/x", head: main, current: false });
  });

  test("create branch here: at HEAD, checked out, changes left as they were; bad and taken names refused", async () => {
    const repo = newRepo();
    const head = repo.commit("one", { "a.txt": "a\n" });
    repo.git("checkout", "-q", "--detach");
    repo.write("a.txt", "edited\n");
    repo.write("b.txt", "staged\n");
    repo.git("add", "b.txt");
    const statusBefore = repo.git("status", "--porcelain");
    const ctx = await repo.context();
    assert.deepEqual(await createBranch(ctx, "feature/one"), { branch: "feature/one", head });
    assert.equal(repo.git("symbolic-ref", "--short", "HEAD").trim(), "feature/one");
    assert.equal(repo.git("status", "--porcelain"), statusBefore);
    for (const bad of ["a..b", "-x", "HEAD", "@", "@{-1}", "has space", "x.lock"]) {
      await assert.rejects(createBranch(ctx, bad), GitRequestError, bad);
    }
    await assert.rejects(createBranch(ctx, "main"), conflictOf("branchExists"));
  });

  test("switching carries unrelated changes along", async () => {
    const repo = newRepo();
    repo.commit("one", { "a.txt": "a\n", "b.txt": "b\n" });
    repo.git("branch", "other");
    repo.commit("two", { "b.txt": "b2\n" });
    repo.write("a.txt", "local\n");
    const result = await switchBranch(await repo.context(), "other");
    assert.equal(result.branch, "other");
    assert.equal(readFileSync(join(repo.root, "a.txt"), "utf8"), "local\n");
    assert.equal(readFileSync(join(repo.root, "b.txt"), "utf8"), "b\n");
  });

  test("refused over a local change to a file the branch changes, staged or not", async () => {
    const repo = newRepo();
    repo.commit("one", { "a.txt": "a\n", "c.txt": "c\n" });
    repo.git("switch", "-q", "-c", "other");
    repo.commit("other", { "a.txt": "other\n", "c.txt": "c-other\n" });
    repo.git("switch", "-q", "main");
    repo.write("a.txt", "mine\n");
    repo.write("c.txt", "mine too\n");
    repo.git("add", "c.txt");
    await assert.rejects(switchBranch(await repo.context(), "other"), conflictOf("localChanges", ["a.txt", "c.txt"]));
    assert.equal(repo.git("symbolic-ref", "--short", "HEAD").trim(), "main");
    assert.equal(readFileSync(join(repo.root, "a.txt"), "utf8"), "mine\n");
  });

  test("refused over an ignored file the branch tracks (git would overwrite it silently)", async () => {
    const repo = newRepo();
    repo.commit("one", { ".gitignore": "secrets.env\nbuild/\n" });
    repo.git("switch", "-q", "-c", "other");
    repo.write("secrets.env", "TRACKED=1\n");
    repo.git("add", "-f", "secrets.env");
    repo.git("commit", "-q", "-m", "track it");
    repo.git("switch", "-q", "main");
    assert.equal(existsSync(join(repo.root, "secrets.env")), false);
    repo.write("secrets.env", "MY_LOCAL_SECRET=1\n");
    await assert.rejects(switchBranch(await repo.context(), "other"), conflictOf("localChanges", ["secrets.env"]));
    assert.equal(readFileSync(join(repo.root, "secrets.env"), "utf8"), "MY_LOCAL_SECRET=1\n");
  });

  test("unknown branch, and an operation in progress", async () => {
    const repo = newRepo();
    divergeBranches(repo);
    const ctx = await repo.context();
    await assert.rejects(switchBranch(ctx, "nope"), GitRequestError);
    assert.throws(() => repo.git("merge", "-q", "other"));
    await assert.rejects(switchBranch(ctx, "other"), conflictOf("operationInProgress"));
  });
});

describe("log", () => {
  test("since the merge base with the upstream; newest first; full ids and ISO times", async () => {
    const remote = newRepo({ bare: true });
    const repo = newRepo();
    repo.commit("one");
    repo.git("remote", "add", "origin", remote.root);
    const pushed = repo.commit("two");
    repo.git("push", "-q", "-u", "origin", "main");
    const three = repo.commit("three");
    const four = repo.commit("four");
    const ctx = await repo.context();
    const base = await resolveLogBase(ctx);
    assert.deepEqual(base, { sha: pushed, from: "origin/main" });
    const log = await readLog(ctx, { base: base!.sha });
    assert.deepEqual(
      log.commits.map((c) => [c.sha, c.subject]),
      [
        [four, "four"],
        [three, "three"],
      ],
    );
    assert.equal(log.commits[0]!.author, "Tess Ter");
    assert.match(log.commits[0]!.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(log.truncated, false);
  });

  test("a feature branch without upstream: since the default branch; on the default branch itself: no base", async () => {
    const repo = newRepo();
    repo.commit("one");
    const fork = repo.commit("two");
    repo.git("switch", "-q", "-c", "feature");
    const mine = repo.commit("mine");
    const ctx = await repo.context();
    assert.deepEqual(await resolveLogBase(ctx), { sha: fork, from: "main" });
    assert.deepEqual(
      (await readLog(ctx, { base: fork })).commits.map((c) => c.sha),
      [mine],
    );
    repo.git("switch", "-q", "main");
    assert.equal(await resolveLogBase(ctx), undefined);
    const last = await readLog(ctx, { limit: 1 });
    assert.deepEqual(
      last.commits.map((c) => c.subject),
      ["two"],
    );
    assert.equal(last.truncated, true);
  });

  test("a worktree's base wins; a repository without commits has no log", async () => {
    const repo = newRepo();
    const one = repo.commit("one");
    repo.commit("two");
    const ctx = await repo.context();
    assert.deepEqual(await resolveLogBase(ctx, one), { sha: one, from: "worktree base" });
    const empty = newRepo();
    const emptyCtx = await empty.context();
    assert.equal(await resolveLogBase(emptyCtx), undefined);
    assert.deepEqual(await readLog(emptyCtx), { commits: [], truncated: false });
  });
});
