import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { refused } from "../support/config-files.js";
import { startServer, waitUntil, waitUntilAsync, type TestServer } from "../support/harness.js";
import { isAlive } from "../support/processes.js";
import { SERVER_GIT_ENV, files, git, initRepo, registered, status, write } from "../support/worktree-git.js";

// A worktree's life after its start: environment scripts, archive's
// snapshot and deletion, restore, pruning past worktrees.keep, the
// refusals, worktree/list and worktree/delete, and the user's own worktrees.

let model: ScriptedModelServer;
let server: TestServer;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model, env: { ...SERVER_GIT_ENV, KNIGHTCODE_THREAD_IDLE_MS: "300" } });
});
after(async () => {
  await server.close();
  await model.close();
});

let projects = 0;
function project(files: Record<string, string | Buffer> = { "a.txt": "a\n", "b.txt": "b\n", ".gitignore": "*.log\n" }): string {
  return initRepo(join(server.home, `life-${++projects}`, "project"), files);
}

async function startWorktree(cwd: string, environment?: string) {
  return server.main.request("thread/start", { cwd, workspace: { mode: "worktree", ...(environment ? { environment } : {}) } });
}

function snapshotRefs(repo: string): string[] {
  return git(repo, "for-each-ref", "--format=%(refname)", "refs/knightcode/snapshots").split("\n").filter(Boolean);
}

/** Waits until the thread has unloaded (no subscriber, idle past KNIGHTCODE_THREAD_IDLE_MS). */
async function unloaded(threadId: string): Promise<void> {
  await server.main.request("thread/unsubscribe", { threadId });
  await server.main.waitForNotification("thread/status/changed", (p) => p.threadId === threadId && p.status.type === "notLoaded");
}

describe("spec: environments of new worktrees", () => {
  test("a trusted project's setup script runs in the worktree with KNIGHTCODE_WORKTREE_PATH, its output streamed to the caller; a failure is a warning", async () => {
    const repo = project();
    write(repo, {
      ".knightcode/environments.json": JSON.stringify({
        environments: [{ name: "dev", setup: { default: 'echo "setup in $KNIGHTCODE_WORKTREE_PATH"; pwd; echo oops >&2; touch made-by-setup; exit 3' } }],
      }),
    });
    await server.main.request("project/trust/set", { cwd: repo, trusted: true });
    const mark = server.main.notifications.length;
    const { thread, warnings } = await startWorktree(repo, "dev");
    assert.deepEqual(warnings, []);
    const path = thread.workspace.path!;
    const end = await server.main.waitForNotification("thread/workspace/progress", (p) => p.threadId === thread.id && p.done === true, { since: mark });
    assert.deepEqual({ phase: end.phase, exitCode: end.exitCode }, { phase: "setup", exitCode: 3 });
    const output = server.main
      .notificationsOf("thread/workspace/progress")
      .filter((p) => p.threadId === thread.id)
      .map((p) => p.output)
      .join("");
    assert.match(output, new RegExp(`setup in ${path}\n`));
    assert.match(output, new RegExp(`^${path}$`, "m"));
    assert.match(output, /oops/);
    assert.ok(existsSync(join(path, "made-by-setup")));
    assert.equal(existsSync(join(repo, "made-by-setup")), false);
    const warning = await server.main.waitForNotification("warning", (p) => p.threadId === thread.id, { since: mark });
    assert.match(warning.warning.message, /setup script of environment "dev" exited with 3/);
    server.main.assertNoSchemaViolations();
  });

  test("an untrusted project's scripts never run: the start says so in its warnings", async () => {
    const repo = project();
    const marker = join(server.home, `setup-ran-${projects}`);
    write(repo, { ".knightcode/environments.json": JSON.stringify({ environments: [{ name: "dev", setup: { default: `touch '${marker}'` } }] }) });
    const mark = server.main.notifications.length;
    const { thread, warnings } = await startWorktree(repo, "dev");
    assert.equal(warnings.filter((w) => w.source === "trust" && /environment "dev" did not run/.test(w.message)).length, 1);
    await server.main.request("thread/settings/update", { threadId: thread.id, planMode: false });
    assert.equal(
      server.main.notifications.slice(mark).some((n) => n.method === "thread/workspace/progress"),
      false,
    );
    assert.equal(existsSync(marker), false);
  });

  test("a setup still running when its thread closes is killed, background jobs included", async () => {
    const repo = project();
    const pids = join(server.home, `pids-${projects}`);
    write(repo, {
      ".knightcode/environments.json": JSON.stringify({
        environments: [{ name: "slow", setup: { default: `sleep 300 & echo $! > '${pids}'; echo started; wait` } }],
      }),
    });
    await server.main.request("project/trust/set", { cwd: repo, trusted: true });
    const { thread } = await startWorktree(repo, "slow");
    await server.main.waitForNotification("thread/workspace/progress", (p) => p.threadId === thread.id && p.output.includes("started"));
    const pid = Number(readFileSync(pids, "utf8"));
    assert.ok(isAlive(pid));
    await unloaded(thread.id);
    await waitUntil("the setup's sleep to be killed", () => !isAlive(pid));
  });
});

describe("spec: archive, restore, pruning and the refusals", () => {
  test("archiving snapshots and deletes the worktree (its cleanup script first); restore rebuilds HEAD, files and the staged state after unarchive", async () => {
    const repo = project();
    write(repo, {
      ".knightcode/environments.json": JSON.stringify({
        environments: [{ name: "dev", setup: { default: "true" }, cleanup: { default: 'echo "cleaning $KNIGHTCODE_WORKTREE_PATH"' } }],
      }),
    });
    await server.main.request("project/trust/set", { cwd: repo, trusted: true });
    const { thread } = await startWorktree(repo, "dev");
    const path = thread.workspace.path!;
    write(path, { "a.txt": "a staged\n", "c.bin": Buffer.from([0, 255, 0, 10]) });
    git(path, "add", "a.txt", "c.bin");
    write(path, { "a.txt": "a staged, then edited\n", "new/u.txt": "untracked\n", "x.log": "ignored\n" });
    const head = git(path, "rev-parse", "HEAD").trim();
    const before = { files: files(path), status: status(path), index: git(path, "ls-files", "-s") };

    const mark = server.main.notifications.length;
    await server.main.request("thread/archive", { threadId: thread.id });
    assert.equal(existsSync(path), false, "the folder is gone");
    assert.equal(registered(repo).includes(path), false, "and its registration");
    const refs = snapshotRefs(repo);
    assert.equal(refs.length, 1);
    assert.match(refs[0]!, new RegExp(`^refs/knightcode/snapshots/${basename(dirname(path))}/\\d+$`));
    const cleanup = server.main.notificationsOf("thread/workspace/progress").filter((p) => p.threadId === thread.id && p.phase === "cleanup");
    assert.match(cleanup.map((p) => p.output).join(""), new RegExp(`cleaning ${path}`));
    assert.ok(server.main.notifications.slice(mark).some((n) => n.method === "thread/workspace/progress"));
    const listed = (await server.main.request("worktree/list", { cwd: repo })).worktrees.find((w) => w.path === path)!;
    assert.deepEqual({ deleted: listed.deleted, head: listed.head }, { deleted: true, head });

    await refused(server.main, "thread/worktree/restore", { threadId: thread.id }, "invalidParams", /unarchive/);
    await server.main.request("thread/unarchive", { threadId: thread.id });
    // A thread whose worktree is deleted still loads (its folder is missing until the restore).
    const resumed = await server.main.request("thread/resume", { threadId: thread.id });
    assert.equal(resumed.thread.cwd, thread.cwd);
    const restored = await server.main.request("thread/worktree/restore", { threadId: thread.id });
    assert.equal(restored.thread.cwd, thread.cwd);
    assert.deepEqual(restored.thread.workspace, thread.workspace);
    assert.equal(git(path, "rev-parse", "HEAD").trim(), head);
    assert.equal(git(path, "rev-parse", "--abbrev-ref", "HEAD").trim(), "HEAD");
    const expected = { ...before.files };
    delete expected["x.log"];
    assert.deepEqual(files(path), expected, "working files as they were; ignored ones were not kept");
    assert.equal(status(path), before.status.replace("?? x.log\n", ""));
    assert.equal(git(path, "ls-files", "-s"), before.index, "the staged state as it was");
    assert.equal((await server.main.request("worktree/list", {})).worktrees.find((w) => w.path === path)!.deleted, false);
    await refused(server.main, "thread/worktree/restore", { threadId: thread.id }, "invalidParams", /not deleted/);
    server.main.assertNoSchemaViolations();
  });

  test("a snapshot that is gone answers worktreeMissing; a local thread cannot be restored", async () => {
    const repo = project();
    const { thread } = await startWorktree(repo);
    await server.main.request("thread/archive", { threadId: thread.id });
    for (const ref of snapshotRefs(repo)) git(repo, "update-ref", "-d", ref);
    await server.main.request("thread/unarchive", { threadId: thread.id });
    const missing = await refused(server.main, "thread/worktree/restore", { threadId: thread.id }, "gitConflict");
    assert.equal(missing.data?.reason, "worktreeMissing");
    assert.equal(existsSync(thread.workspace.path!), false);
    const local = await server.main.request("thread/start", { cwd: repo });
    await refused(server.main, "thread/worktree/restore", { threadId: local.thread.id }, "invalidParams", /worktree/);
    await refused(server.main, "thread/worktree/restore", { threadId: "no-such-thread" }, "threadNotFound");
  });

  test("a worktree another thread is loaded in, or that holds a nested repository, outlives archive and is refused by worktree/delete", async () => {
    const repo = project();
    const first = (await startWorktree(repo)).thread;
    const path = first.workspace.path!;
    const second = (await server.main.request("thread/start", { cwd: path })).thread;
    await server.main.request("thread/archive", { threadId: first.id });
    assert.ok(existsSync(join(path, "a.txt")), "the other thread still runs there");
    const inUse = await refused(server.main, "worktree/delete", { path }, "gitConflict");
    assert.equal(inUse.data?.reason, "worktreeInUse");

    initRepo(join(path, "vendor", "lib"));
    await unloaded(second.id);
    await server.main.request("thread/archive", { threadId: second.id });
    assert.ok(existsSync(join(path, "a.txt")), "a nested repository keeps the worktree");
    const nested = await refused(server.main, "worktree/delete", { path }, "gitConflict");
    assert.equal(nested.data?.reason, "submodules");
    assert.deepEqual(nested.data?.paths, ["vendor/lib"]);
    assert.deepEqual(snapshotRefs(repo), []);
  });

  test("worktree/delete answers the snapshot; anything but a managed worktree's own folder is invalidParams and untouched, the user's own worktrees included", async () => {
    const repo = project();
    const { thread } = await startWorktree(repo);
    const path = thread.workspace.path!;
    const own = join(dirname(repo), "own-worktree");
    git(repo, "worktree", "add", "-q", "--detach", own);
    const ownBefore = files(own);
    for (const bad of [own, join(path, "missing"), dirname(path), repo, "/nonexistent/thing"]) {
      await refused(server.main, "worktree/delete", { path: bad }, "invalidParams", /managed worktree/);
    }
    assert.deepEqual(files(own), ownBefore);
    assert.ok(registered(repo).includes(own));

    await unloaded(thread.id);
    const { snapshot } = await server.main.request("worktree/delete", { path });
    assert.deepEqual(snapshotRefs(repo), [snapshot]);
    assert.equal(existsSync(path), false);
    await refused(server.main, "worktree/delete", { path }, "invalidParams", /already deleted/);
    assert.ok(registered(repo).includes(own), "the user's own worktree is still registered");
    assert.deepEqual(files(own), ownBefore);
  });

  test("past worktrees.keep the least recently used worktrees go, after a snapshot, whenever a worktree is made", async () => {
    const repo = project();
    // A root of its own: the other tests' worktrees do not count here.
    const root = join(server.home, "pruned-worktrees");
    await server.main.request("config/write", { scope: "global", key: "worktrees.root", value: root });
    await server.main.request("config/write", { scope: "global", key: "worktrees.keep", value: 2 });
    try {
      const a = (await startWorktree(repo)).thread;
      const b = (await startWorktree(repo)).thread;
      await unloaded(a.id);
      await unloaded(b.id);
      // Using A again makes B the least recently used.
      await server.main.request("thread/resume", { threadId: a.id });
      await waitUntilAsync("A's use to be recorded", async () => {
        const order = (await server.main.request("worktree/list", { cwd: repo })).worktrees.map((w) => w.path);
        return order.indexOf(a.workspace.path!) < order.indexOf(b.workspace.path!);
      });
      await unloaded(a.id);
      const c = (await startWorktree(repo)).thread;
      await waitUntil("B to be pruned", () => !existsSync(b.workspace.path!));
      assert.ok(existsSync(a.workspace.path!));
      assert.ok(existsSync(c.workspace.path!));
      assert.deepEqual(
        snapshotRefs(repo).map((ref) => ref.split("/")[3]),
        [basename(dirname(b.workspace.path!))],
      );
      const listed = await server.main.request("worktree/list", { cwd: repo });
      assert.deepEqual(
        listed.worktrees.map((w) => [w.path, w.deleted]),
        [
          [c.workspace.path, false],
          [a.workspace.path, false],
          [b.workspace.path, true],
        ],
      );
    } finally {
      await server.main.request("config/write", { scope: "global", key: "worktrees.keep", value: null });
      await server.main.request("config/write", { scope: "global", key: "worktrees.root", value: null });
    }
  });

  test("worktree/list lists every managed worktree, or those of a project, newest use first", async () => {
    const one = project();
    const two = project();
    const a = (await startWorktree(one)).thread;
    const b = (await startWorktree(two)).thread;
    const all = (await server.main.request("worktree/list", {})).worktrees.map((w) => w.path);
    assert.ok(all.includes(a.workspace.path!) && all.includes(b.workspace.path!));
    const mine = (await server.main.request("worktree/list", { cwd: one })).worktrees;
    assert.deepEqual(
      mine.map((w) => w.path),
      [a.workspace.path],
    );
    await waitUntilAsync("the thread to be recorded", async () =>
      (await server.main.request("worktree/list", { cwd: one })).worktrees[0]!.threadIds.includes(a.id),
    );
    assert.deepEqual((await server.main.request("worktree/list", { cwd: server.project() })).worktrees, []);
    await refused(server.main, "worktree/list", { cwd: join(one, "missing") }, "invalidParams");
    server.main.assertNoSchemaViolations();
  });
});
