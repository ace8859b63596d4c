import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { refused } from "../support/config-files.js";
import { startServer, type TestServer } from "../support/harness.js";
import { SERVER_GIT_ENV, armTraps, files, git, initRepo, registered, status, write } from "../support/worktree-git.js";

// thread/start in a worktree: where it is made and runs, what it carries,
// what never runs, what a failure leaves, and joining a managed worktree.

const BINARY = Buffer.from([0, 1, 2, 3, 255, 254, 0, 10, 13, 10, 0]);
let model: ScriptedModelServer;
let server: TestServer;
let root: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model, env: SERVER_GIT_ENV });
  root = join(realpathSync(server.agentDir), "worktrees");
});
after(async () => {
  await server.close();
  await model.close();
});

let projects = 0;
function project(files: Record<string, string | Buffer> = { "README.md": "hello\n", "src/app/main.ts": "main\n" }): string {
  return initRepo(join(server.home, `repo-${++projects}`, "project"), files);
}

function buckets(): string[] {
  return existsSync(root) ? readdirSync(root).sort() : [];
}

async function startIn(cwd: string, workspace?: { mode: "worktree"; baseRef?: string; carryLocalChanges?: boolean; environment?: string } | { mode: "local" }) {
  return server.main.request("thread/start", { cwd, approvalMode: "fullAccess", ...(workspace ? { workspace } : {}) });
}

describe("spec: thread/start in a worktree", () => {
  test("a detached worktree under <worktrees.root>/<4 hex>/<repository name>, the thread in the same subfolder, its tools there too", async () => {
    const repo = project();
    const head = git(repo, "rev-parse", "HEAD").trim();
    const { thread, warnings } = await startIn(join(repo, "src", "app"), { mode: "worktree" });
    assert.deepEqual(warnings, []);
    const path = thread.workspace.path!;
    assert.match(path, new RegExp(`^${root}/[0-9a-f]{4}/project$`));
    assert.deepEqual(thread.workspace, { mode: "worktree", path, baseRef: head });
    assert.equal(thread.cwd, join(path, "src", "app"));
    assert.equal(git(path, "rev-parse", "HEAD").trim(), head);
    assert.equal(git(path, "rev-parse", "--abbrev-ref", "HEAD").trim(), "HEAD", "detached: no branch is made");
    assert.equal(git(repo, "branch", "--list").trim(), "* main");
    assert.deepEqual(files(path), files(repo));
    assert.ok(registered(repo).includes(path));

    model.enqueue({ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }, { text: "done" });
    await server.main.request("turn/start", { threadId: thread.id, text: "where am I?" });
    const call = await server.main.waitForNotification("item/completed", (p) => p.threadId === thread.id && p.item.type === "toolCall");
    assert.match(JSON.stringify(call.item), new RegExp(join(path, "src", "app").replace(/[/]/g, "\\/")));
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id);
    assert.equal(existsSync(join(repo, "src", "app", "pwd")), false);

    const listed = await server.main.request("thread/list", { cwd: join(repo, "src", "app") });
    const summary = listed.threads.find((t) => t.id === thread.id)!;
    assert.equal(summary.cwd, join(repo, "src", "app"), "listed with its project");
    assert.equal(summary.workspaceMode, "worktree");
    assert.deepEqual(summary.workspace, thread.workspace);
    assert.equal((await server.main.request("thread/read", { threadId: thread.id })).thread.workspaceMode, "worktree");
    server.main.assertNoSchemaViolations();
  });

  test("a local start stays in the checkout, and its summary says local", async () => {
    const repo = project();
    const { thread } = await startIn(repo, { mode: "local" });
    assert.deepEqual(thread.workspace, { mode: "local" });
    assert.equal(thread.cwd, repo);
    const summary = (await server.main.request("thread/list", { cwd: repo })).threads.find((t) => t.id === thread.id)!;
    assert.equal(summary.workspaceMode, "local");
    assert.deepEqual(summary.workspace, { mode: "local" });
  });

  test("creation runs no hook and no filter driver, even a required one", async () => {
    const repo = project({ ".gitattributes": "*.txt filter=mark\n", "a.txt": "plain\n" });
    const marks = join(server.home, `marks-${projects}`);
    armTraps(repo, marks);
    write(repo, { "a.txt": "edited\n", "b.txt": "untracked\n" });
    const { thread } = await startIn(repo, { mode: "worktree", carryLocalChanges: true });
    assert.deepEqual(readdirSync(marks), [], "no hook or filter left a mark");
    assert.equal(readFileSync(join(thread.cwd, "a.txt"), "utf8"), "edited\n");
    assert.equal(readFileSync(join(thread.cwd, "b.txt"), "utf8"), "untracked\n");
  });

  test("carryLocalChanges brings staged, unstaged, untracked and binary changes, staged ones staged, ignored ones not; the checkout keeps them", async () => {
    const repo = project({ "a.txt": "a\n", "b.txt": "b\n", "gone.txt": "g\n", ".gitignore": "*.log\n" });
    write(repo, { "a.txt": "a staged\n", "added.bin": BINARY });
    git(repo, "add", "a.txt", "added.bin");
    write(repo, { "a.txt": "a staged, then edited\n", "b.txt": "b unstaged\n", "new/untracked.bin": BINARY, "debug.log": "ignored\n" });
    git(repo, "rm", "-q", "gone.txt");
    const before = { files: files(repo), status: status(repo), index: git(repo, "ls-files", "-s") };
    const { thread } = await startIn(repo, { mode: "worktree", carryLocalChanges: true });
    const path = thread.workspace.path!;
    assert.deepEqual({ files: files(repo), status: status(repo), index: git(repo, "ls-files", "-s") }, before, "the checkout keeps its changes");
    const expected = { ...before.files };
    delete expected["debug.log"];
    assert.deepEqual(files(path), expected);
    assert.equal(status(path), before.status.replace("?? debug.log\n", ""));
    assert.equal(git(path, "ls-files", "-s"), before.index);
    assert.deepEqual(readFileSync(join(path, "new", "untracked.bin")), BINARY);

    const plain = await startIn(repo, { mode: "worktree" });
    assert.equal(status(plain.thread.workspace.path!), "", "without carryLocalChanges the worktree is clean");
  });

  test("baseRef picks the commit; unknown is invalidParams, outside git notGitRepo, and neither leaves anything", async () => {
    const repo = project();
    const first = git(repo, "rev-parse", "HEAD").trim();
    write(repo, { "second.txt": "2\n" });
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "second");
    const { thread } = await startIn(repo, { mode: "worktree", baseRef: "HEAD~1" });
    assert.equal(thread.workspace.baseRef, first);
    assert.equal(existsSync(join(thread.cwd, "second.txt")), false);

    const before = { buckets: buckets(), worktrees: registered(repo), threads: (await server.main.request("thread/list", {})).threads.length };
    const mark = server.main.notifications.length;
    await refused(server.main, "thread/start", { cwd: repo, workspace: { mode: "worktree", baseRef: "no-such-branch" } }, "invalidParams", /baseRef/);
    const plain = server.project({ "a.txt": "not in git\n" });
    await refused(server.main, "thread/start", { cwd: plain, workspace: { mode: "worktree" } }, "notGitRepo");
    await refused(server.main, "thread/start", { cwd: repo, workspace: { mode: "worktree", environment: "nope" } }, "invalidParams", /environment/);
    assert.deepEqual({ buckets: buckets(), worktrees: registered(repo), threads: (await server.main.request("thread/list", {})).threads.length }, before);
    assert.equal(server.main.notifications.slice(mark).filter((n) => n.method === "thread/started").length, 0);
    server.main.assertNoSchemaViolations();
  });

  test("a worktrees.root that cannot be made, and a thread that cannot be created after the worktree was, leave nothing behind", async () => {
    const repo = project();
    const before = { buckets: buckets(), worktrees: registered(repo), threads: (await server.main.request("thread/list", {})).threads.length };
    const blocker = join(server.home, "a-file");
    writeFileSync(blocker, "");
    await server.main.request("config/write", { scope: "global", key: "worktrees.root", value: join(blocker, "worktrees") });
    await refused(server.main, "thread/start", { cwd: repo, workspace: { mode: "worktree" } }, "internal", /worktrees/);
    await server.main.request("config/write", { scope: "global", key: "worktrees.root", value: null });
    assert.equal(existsSync(join(blocker, "worktrees")), false);

    await server.main.request("config/write", { scope: "global", key: "sessionDir", value: join(blocker, "sessions") });
    try {
      await refused(server.main, "thread/start", { cwd: repo, workspace: { mode: "worktree" } }, "internal");
    } finally {
      await server.main.request("config/write", { scope: "global", key: "sessionDir", value: null });
    }
    assert.deepEqual({ buckets: buckets(), worktrees: registered(repo), threads: (await server.main.request("thread/list", {})).threads.length }, before);
  });

  test("a start inside a managed worktree joins it: a new thread there, whatever the workspace asked", async () => {
    const repo = project();
    const first = (await startIn(join(repo, "src"), { mode: "worktree" })).thread;
    const path = first.workspace.path!;
    mkdirSync(join(path, "src", "app", "deeper"), { recursive: true });
    for (const workspace of [undefined, { mode: "worktree" as const }, { mode: "local" as const }]) {
      const { thread } = await startIn(join(path, "src", "app", "deeper"), workspace);
      assert.equal(thread.cwd, join(path, "src", "app", "deeper"));
      assert.deepEqual(thread.workspace, first.workspace);
      const summary = (await server.main.request("thread/list", { cwd: join(repo, "src") })).threads.find((t) => t.id === thread.id);
      assert.equal(summary?.workspaceMode, "worktree", "listed with the project the worktree belongs to");
    }
    const listed = await server.main.request("worktree/list", { cwd: repo });
    const mine = listed.worktrees.find((w) => w.path === path)!;
    assert.equal(mine.projectCwd, join(repo, "src"));
    assert.equal(mine.deleted, false);
    assert.equal(mine.head, git(repo, "rev-parse", "HEAD").trim());
    assert.equal(mine.branch, undefined);
    server.main.assertNoSchemaViolations();
  });

  test("a worktree thread resumes in its worktree, and its fork runs there too", async () => {
    const repo = project();
    const { thread } = await startIn(repo, { mode: "worktree" });
    const resumed = await server.main.request("thread/resume", { threadId: thread.id });
    assert.equal(resumed.thread.cwd, thread.cwd);
    assert.deepEqual(resumed.thread.workspace, thread.workspace);
    const forked = await server.main.request("thread/fork", { threadId: thread.id });
    assert.equal(forked.thread.cwd, thread.cwd);
    assert.deepEqual(forked.thread.workspace, thread.workspace);
  });

  test("approvals treat the worktree as the thread's workspace: edits there are not writes into the agent folder, edits to the checkout are outside", async () => {
    const repo = project();
    const { thread } = await server.main.request("thread/start", { cwd: repo, approvalMode: "autoEdit", workspace: { mode: "worktree" } });
    const asked: string[] = [];
    const off = server.main.client.onRequest("item/toolCall/requestApproval", (params) => {
      asked.push(JSON.stringify(params));
      return { decision: "decline" };
    });
    try {
      model.enqueue(
        { toolCalls: [{ name: "write", arguments: { path: "made-in-worktree.txt", content: "here\n" } }] },
        { toolCalls: [{ name: "write", arguments: { path: join(repo, "made-in-checkout.txt"), content: "there\n" } }] },
        { text: "done" },
      );
      await server.main.request("turn/start", { threadId: thread.id, text: "write both" });
      await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id);
    } finally {
      off();
    }
    assert.equal(readFileSync(join(thread.cwd, "made-in-worktree.txt"), "utf8"), "here\n");
    assert.equal(existsSync(join(repo, "made-in-checkout.txt")), false);
    assert.equal(asked.length, 1, asked.join("\n"));
    assert.match(asked[0]!, /outside the workspace/);
  });

  test("git/log of a worktree thread counts from the commit its worktree was made at", async () => {
    const repo = project();
    const base = git(repo, "rev-parse", "HEAD").trim();
    git(repo, "commit", "-q", "--allow-empty", "-m", "later on main");
    const { thread } = await startIn(repo, { mode: "worktree", baseRef: base });
    git(thread.workspace.path!, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "--allow-empty", "-m", "in the worktree");
    const log = await server.main.request("git/log", { threadId: thread.id });
    assert.deepEqual(log.base, { sha: base, from: "worktree base" });
    assert.deepEqual(
      log.commits.map((c) => c.subject),
      ["in the worktree"],
    );
  });

  test("the branch diff of a worktree thread compares with its worktree's base", async () => {
    const repo = project();
    const base = git(repo, "rev-parse", "HEAD").trim();
    const { thread } = await startIn(repo, { mode: "worktree" });
    const path = thread.workspace.path!;
    write(path, { "committed.txt": "c\n" });
    git(path, "add", "committed.txt");
    git(path, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "-m", "in the worktree");
    write(path, { "README.md": "edited\n" });
    const diff = await server.main.request("thread/diff/read", { threadId: thread.id, scope: "branch" });
    assert.equal(diff.against, base);
    assert.deepEqual(diff.files.map((f) => f.path).sort(), ["README.md", "committed.txt"]);
  });
});
