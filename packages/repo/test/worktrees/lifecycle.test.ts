import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, test } from "node:test";
import { GitConflictError } from "../../src/git/errors.js";
import { createWorktree } from "../../src/worktrees/create.js";
import { WorktreeError } from "../../src/worktrees/errors.js";
import { pruneWorktrees } from "../../src/worktrees/prune.js";
import { listRecords, managedContaining, readRecord, updateRecord } from "../../src/worktrees/record.js";
import { deleteWorktree } from "../../src/worktrees/remove.js";
import { restoreWorktree } from "../../src/worktrees/snapshot.js";
import { GIT_ENV, files, git, initRepo, scratch, status, write } from "./fixture.js";

const fresh = scratch("worktree-lifecycle");
const BINARY = Buffer.from([0, 159, 146, 150, 0, 10]);
const free = { inUse: () => false, env: GIT_ENV };

async function project() {
  const base = fresh();
  const repo = initRepo(join(base, "project"), { "a.txt": "a\n", "b.txt": "b\n", ".gitignore": "*.log\n" });
  return { base, repo, root: join(base, "worktrees") };
}

describe("worktree snapshots, deletion and restore", () => {
  test("delete keeps a snapshot ref; restore brings back HEAD, files and the staged state at the same path", async () => {
    const { repo, root } = await project();
    const created = await createWorktree({ root, cwd: repo, env: GIT_ENV });
    const path = created.record.path;
    write(path, { "a.txt": "a staged\n", "c.bin": BINARY });
    git(path, "add", "a.txt", "c.bin");
    write(path, { "a.txt": "a staged, then edited\n", "b.txt": "b edited\n", "new/untracked.txt": "u\n", "debug.log": "ignored\n" });
    git(path, "rm", "-q", "--cached", "b.txt");
    const head = git(path, "rev-parse", "HEAD").trim();
    const before = { files: files(path), status: status(path), index: git(path, "ls-files", "-s") };

    const { snapshot } = await deleteWorktree(created, { ...free, now: () => 1_700_000_000_000 });
    assert.equal(snapshot, `refs/knightcode/snapshots/${basename(created.bucketDir)}/1700000000000`);
    assert.equal(existsSync(path), false);
    assert.equal(git(repo, "worktree", "list").includes(path), false);
    const record = readRecord(created.bucketDir)!;
    assert.equal(record.deleted, true);
    assert.equal(record.snapshot, snapshot);
    assert.equal(record.head, head);
    assert.equal(git(repo, "rev-parse", `${snapshot}^1`).trim(), head);

    await restoreWorktree({ repoRoot: record.repoRoot, checkoutRoot: record.checkoutRoot, path, snapshot: snapshot!, env: GIT_ENV });
    assert.equal(git(path, "rev-parse", "HEAD").trim(), head);
    assert.equal(git(path, "rev-parse", "--abbrev-ref", "HEAD").trim(), "HEAD");
    const expected = { ...before.files };
    delete expected["debug.log"];
    assert.deepEqual(files(path), expected, "ignored files are not kept");
    assert.equal(status(path), before.status.replace("?? debug.log\n", ""));
    assert.equal(git(path, "ls-files", "-s"), before.index);
  });

  test("a worktree in use or holding a nested repository is refused and left as it was", async () => {
    const { repo, root } = await project();
    const created = await createWorktree({ root, cwd: repo, env: GIT_ENV });
    await assert.rejects(
      deleteWorktree(created, { inUse: (p) => p === created.record.path, env: GIT_ENV }),
      (e: unknown) => e instanceof GitConflictError && e.reason === "worktreeInUse",
    );
    initRepo(join(created.record.path, "vendor", "lib"));
    await assert.rejects(deleteWorktree(created, free), (e: unknown) => {
      assert.ok(e instanceof GitConflictError && e.reason === "submodules");
      assert.deepEqual(e.details.paths, ["vendor/lib"]);
      return true;
    });
    assert.equal(existsSync(join(created.record.path, "a.txt")), true);
    assert.equal(readRecord(created.bucketDir)!.deleted, false);
    assert.equal(git(repo, "for-each-ref", "refs/knightcode").trim(), "");
  });

  test("deleting twice is invalidParams; a snapshot that went answers worktreeMissing", async () => {
    const { repo, root } = await project();
    const created = await createWorktree({ root, cwd: repo, env: GIT_ENV });
    const { snapshot } = await deleteWorktree(created, free);
    await assert.rejects(deleteWorktree(created, free), (e: unknown) => e instanceof WorktreeError && e.code === "invalidParams");
    git(repo, "update-ref", "-d", snapshot!);
    const record = readRecord(created.bucketDir)!;
    await assert.rejects(
      restoreWorktree({ repoRoot: record.repoRoot, checkoutRoot: record.checkoutRoot, path: record.path, snapshot: snapshot!, env: GIT_ENV }),
      (e: unknown) => e instanceof GitConflictError && e.reason === "worktreeMissing",
    );
    assert.equal(existsSync(record.path), false);
  });

  test("pruning past keep deletes the least recently used first, skipping those in use", async () => {
    const { repo, root } = await project();
    const made: Awaited<ReturnType<typeof createWorktree>>[] = [];
    for (let i = 0; i < 4; i++) made.push(await createWorktree({ root, cwd: repo, env: GIT_ENV }));
    const used = [0, 3, 2, 1];
    for (const [i, worktree] of made.entries())
      await updateRecord(worktree.bucketDir, (r) => void (r.lastUsedAt = new Date(Date.UTC(2024, 0, 1 + used[i]!)).toISOString()));
    // Oldest first: made[0] (day 1), made[3] (day 2), made[2] (day 3), made[1] (day 4). made[0] is in use.
    const deleted = await pruneWorktrees({ root, keep: 2, inUse: (p) => p === made[0]!.record.path, env: GIT_ENV });
    assert.deepEqual(deleted, [made[3]!.record.path, made[2]!.record.path]);
    assert.deepEqual(
      listRecords(root)
        .filter(({ record }) => !record.deleted)
        .map(({ record }) => record.path)
        .sort(),
      [made[0]!.record.path, made[1]!.record.path].sort(),
    );
    assert.deepEqual(await pruneWorktrees({ root, keep: 2, ...free }), []);
  });

  test("a path is managed only inside its bucket's recorded worktree; the user's own worktrees are not", async () => {
    const { base, repo, root } = await project();
    const created = await createWorktree({ root, cwd: repo, env: GIT_ENV });
    mkdirSync(join(created.record.path, "deeper"));
    assert.equal(managedContaining(root, join(created.record.path, "deeper"))?.record.path, created.record.path);
    assert.equal(managedContaining(root, created.bucketDir), undefined);
    const own = join(base, "own");
    git(repo, "worktree", "add", "-q", "--detach", own);
    assert.equal(managedContaining(root, own), undefined);
    // A worktree the user made inside the root, outside the layout, is not managed either.
    mkdirSync(join(root, "mine"), { recursive: true });
    git(repo, "worktree", "add", "-q", "--detach", join(root, "mine", "wt"));
    assert.equal(managedContaining(root, join(root, "mine", "wt")), undefined);
    writeFileSync(join(root, "abcd"), "not a bucket");
    assert.equal(listRecords(root).length, 1);
    assert.equal(readFileSync(join(own, "a.txt"), "utf8"), "a\n");
  });
});
