import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";
import { failsWith, makeRepo, SERVER_GIT_ENV, type Repo } from "./git-repos.js";

let model: ScriptedModelServer;
let server: TestServer;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model, env: SERVER_GIT_ENV });
});
after(async () => {
  if (process.env.SHOW_STDERR) process.stderr.write(server.stderr);
  await server.close();
  await model.close();
});

async function threadIn(cwd: string): Promise<string> {
  const { thread } = await server.main.request("thread/start", { cwd, model: { provider: "scripted", id: "scripted-model" } });
  return thread.id;
}

/** A repository with one commit, and a thread in a subfolder of it. */
async function repoWithThread(): Promise<{ repo: Repo; threadId: string }> {
  const repo = makeRepo(server);
  repo.commit("base", { "src/a.txt": "a\n", "b.txt": "b\n" });
  return { repo, threadId: await threadIn(join(repo.root, "src")) };
}

describe("git/status", () => {
  test("counts of the thread's checkout, its branch; detached HEAD and a conflicted merge", async () => {
    const { repo, threadId } = await repoWithThread();
    repo.write("src/a.txt", "a2\n");
    repo.git("add", "src/a.txt");
    repo.write("b.txt", "b2\n");
    repo.write("new/one.txt", "1");
    repo.write("new/two.txt", "2");
    assert.deepEqual(await server.main.request("git/status", { threadId }), {
      branch: "main",
      upstream: null,
      ahead: 0,
      behind: 0,
      staged: 1,
      unstaged: 1,
      untracked: 2,
      conflicted: 0,
      operation: null,
    });

    repo.git("stash", "-q", "-u");
    repo.git("checkout", "-q", "--detach");
    assert.equal((await server.main.request("git/status", { threadId })).branch, null);

    repo.git("switch", "-q", "-c", "other");
    repo.commit("theirs", { "b.txt": "theirs\n" });
    repo.git("switch", "-q", "main");
    repo.commit("ours", { "b.txt": "ours\n" });
    assert.throws(() => repo.git("merge", "-q", "other"));
    const merging = await server.main.request("git/status", { threadId });
    assert.equal(merging.operation, "merge");
    assert.equal(merging.conflicted, 1);
    server.assertNoSchemaViolations();
  });

  test("outside a repository: notGitRepo for every method; an unknown thread: threadNotFound", async () => {
    const threadId = await threadIn(server.project({ "a.txt": "a" }));
    const calls = [
      () => server.main.request("git/status", { threadId }),
      () => server.main.request("git/commit", { threadId, message: "x" }),
      () => server.main.request("git/push", { threadId }),
      () => server.main.request("git/pr/create", { threadId }),
      () => server.main.request("git/branches", { threadId }),
      () => server.main.request("git/branch/create", { threadId, name: "x" }),
      () => server.main.request("git/branch/switch", { threadId, name: "x" }),
      () => server.main.request("git/log", { threadId }),
    ];
    for (const call of calls) await failsWith(call(), "notGitRepo");
    await failsWith(server.main.request("git/status", { threadId: "no-such-thread" }), "threadNotFound");
    await failsWith(server.main.request("git/log", { threadId: "no-such-thread" }), "threadNotFound");
    server.assertNoSchemaViolations();
  });
});

describe("git branches", () => {
  test("create branch here, list, switch back; invalid and taken names", async () => {
    const { repo, threadId } = await repoWithThread();
    const head = repo.git("rev-parse", "HEAD").trim();
    repo.write("b.txt", "uncommitted\n");
    // Hooks run for commits only: no post-checkout hook runs on a branch change.
    writeFileSync(join(repo.root, ".git", "hooks", "post-checkout"), '#!/bin/sh\ntouch "$(git rev-parse --git-dir)/post-checkout-ran"\n', { mode: 0o755 });
    assert.deepEqual(await server.main.request("git/branch/create", { threadId, name: "feature/login" }), { branch: "feature/login", head });
    assert.equal(readFileSync(join(repo.root, "b.txt"), "utf8"), "uncommitted\n");
    const listed = await server.main.request("git/branches", { threadId });
    assert.equal(listed.current, "feature/login");
    assert.deepEqual(listed.branches.map((b) => [b.name, b.head, b.current]).sort(), [
      ["feature/login", head, true],
      ["main", head, false],
    ]);
    await failsWith(server.main.request("git/branch/create", { threadId, name: "bad..name" }), "invalidParams");
    const taken = await failsWith(server.main.request("git/branch/create", { threadId, name: "main" }), "gitConflict", "branchExists");
    assert.equal(typeof taken.recoveryInstructions, "string");
    assert.deepEqual(await server.main.request("git/branch/switch", { threadId, name: "main" }), { branch: "main", head });
    await failsWith(server.main.request("git/branch/switch", { threadId, name: "no-such-branch" }), "invalidParams");
    assert.equal(existsSync(join(repo.root, ".git", "post-checkout-ran")), false, "a post-checkout hook ran");
    server.assertNoSchemaViolations();
  });

  test("switch refused over local changes and over an ignored file the branch tracks; nothing moves", async () => {
    const { repo, threadId } = await repoWithThread();
    repo.commit("ignore", { ".gitignore": ".env\n" });
    repo.git("switch", "-q", "-c", "other");
    repo.write(".env", "TRACKED_ON_OTHER=1\n");
    repo.git("add", "-f", ".env");
    repo.commit("other", { "b.txt": "other\n" });
    repo.git("switch", "-q", "main");

    repo.write("b.txt", "my edit\n");
    const changed = await failsWith(server.main.request("git/branch/switch", { threadId, name: "other" }), "gitConflict", "localChanges");
    assert.deepEqual(changed.paths, ["b.txt"]);
    repo.git("checkout", "--", "b.txt");

    repo.write(".env", "MY_SECRET=1\n");
    const ignored = await failsWith(server.main.request("git/branch/switch", { threadId, name: "other" }), "gitConflict", "localChanges");
    assert.deepEqual(ignored.paths, [".env"]);
    assert.equal(readFileSync(join(repo.root, ".env"), "utf8"), "MY_SECRET=1\n");
    assert.equal(repo.git("symbolic-ref", "--short", "HEAD").trim(), "main");
    server.assertNoSchemaViolations();
  });

  test("switch refused while a merge is in progress", async () => {
    const { repo, threadId } = await repoWithThread();
    repo.git("switch", "-q", "-c", "other");
    repo.commit("theirs", { "b.txt": "theirs\n" });
    repo.git("switch", "-q", "main");
    repo.commit("ours", { "b.txt": "ours\n" });
    assert.throws(() => repo.git("merge", "-q", "other"));
    await failsWith(server.main.request("git/branch/switch", { threadId, name: "other" }), "gitConflict", "operationInProgress");
  });

  test("changes are refused while a turn runs in the checkout, from any thread there; reads are not", async () => {
    const { repo, threadId } = await repoWithThread();
    const other = await threadIn(repo.root);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    model.enqueue({ text: ["thinking", " done"], pauseAfter: 1, gate });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId, text: "work" });
    const started = await server.main.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
    await failsWith(server.main.request("git/branch/create", { threadId: other, name: "during-turn" }), "turnInProgress");
    await failsWith(server.main.request("git/commit", { threadId: other, message: "x" }), "turnInProgress");
    assert.equal((await server.main.request("git/status", { threadId: other })).branch, "main");
    release();
    await server.main.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id, { since: mark });
    await server.main.request("git/branch/create", { threadId: other, name: "after-turn" });
    assert.equal(existsSync(join(repo.root, ".git", "refs", "heads", "during-turn")), false);
  });
});

describe("git/log", () => {
  test("the commits since the default branch, newest first; limit", async () => {
    const { repo, threadId } = await repoWithThread();
    const fork = repo.git("rev-parse", "HEAD").trim();
    await server.main.request("git/branch/create", { threadId, name: "feature" });
    const one = repo.commit("feat: one", { "b.txt": "1\n" });
    const two = repo.commit("feat: two", { "b.txt": "2\n" });
    const log = await server.main.request("git/log", { threadId });
    assert.deepEqual(log.base, { sha: fork, from: "main" });
    assert.deepEqual(
      log.commits.map((c) => [c.sha, c.subject, c.author]),
      [
        [two, "feat: two", "Tess Ter"],
        [one, "feat: one", "Tess Ter"],
      ],
    );
    assert.ok(!Number.isNaN(Date.parse(log.commits[0]!.time)));
    const limited = await server.main.request("git/log", { threadId, limit: 1 });
    assert.deepEqual([limited.commits.length, limited.truncated], [1, true]);
    const bad = await server.main.rawRequest("git/log", { threadId, limit: 501 });
    assert.equal(bad.error?.code, "invalidParams");
    server.assertNoSchemaViolations();
  });
});
