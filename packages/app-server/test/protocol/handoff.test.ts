import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppServerError } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, waitUntil, type TestClient, type TestServer } from "../support/harness.js";
import { SERVER_GIT_ENV, git, initRepo, status, write } from "../support/worktree-git.js";

// thread/handoff: a chat and its uncommitted changes move between its
// worktree and the user's checkout; the thread reloads there with the same id.

const BINARY = Buffer.from([0, 1, 2, 255, 0, 13, 10]);
let model: ScriptedModelServer;
let server: TestServer;
/** The server's own TMPDIR: what its git work leaves there shows. */
const serverTmp = mkdtempSync(join(tmpdir(), "kc-handoff-tmp-"));

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model, env: { ...SERVER_GIT_ENV, TMPDIR: serverTmp } });
});
after(async () => {
  await server.close();
  await model.close();
  rmSync(serverTmp, { recursive: true, force: true });
});

let projects = 0;
function project(): string {
  return initRepo(join(server.home, `handoff-${++projects}`, "project"), { "README.md": "hello\n", "src/app/main.ts": "one\ntwo\nthree\n" });
}

async function talk(threadId: string, text: string, client: TestClient = server.main): Promise<void> {
  model.enqueue({ text: "ok" });
  const done = () => client.notifications.filter((n) => n.method === "turn/completed" && (n.params as { threadId: string }).threadId === threadId).length;
  const before = done();
  await client.request("turn/start", { threadId, text });
  await waitUntil("the turn completes", () => done() > before);
}

async function rejects(promise: Promise<unknown>, code: string, reason?: string): Promise<AppServerError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AppServerError, String(error));
    assert.equal(error.code, code, error.message);
    if (reason !== undefined) assert.equal(error.data?.reason, reason, JSON.stringify(error.data));
    return error;
  }
  assert.fail(`expected ${code}`);
}

function handoffFiles(): string[] {
  const dir = join(server.agentDir, "handoff");
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe("spec: thread/handoff", () => {
  test("to local: the worktree's HEAD becomes a branch checked out in the checkout, the changes move, the worktree stays detached and clean", async () => {
    const repo = project();
    const { thread } = await server.main.request("thread/start", {
      cwd: join(repo, "src", "app"),
      approvalMode: "fullAccess",
      workspace: { mode: "worktree" },
    });
    await talk(thread.id, "Fix the parser");
    const worktree = thread.workspace.path!;
    git(worktree, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "--allow-empty", "-m", "work in the worktree");
    const head = git(worktree, "rev-parse", "HEAD").trim();
    write(worktree, { "src/app/main.ts": "one\n2\nthree\n", "src/app/new.ts": "new\n", "data.bin": BINARY });
    git(worktree, "rm", "-q", "README.md");

    const answer = await server.main.request("thread/handoff", { threadId: thread.id, to: "local" });
    assert.equal(answer.branch, "knightcode/fix-the-parser");
    assert.equal(answer.thread.id, thread.id);
    assert.equal(answer.thread.cwd, join(repo, "src", "app"));
    assert.equal(answer.thread.workspace.mode, "local");
    const replaced = await server.main.waitForNotification("thread/replaced", (p) => p.threadId === thread.id);
    assert.equal(replaced.thread.id, thread.id, "the same thread, reloaded");
    assert.equal(replaced.thread.cwd, join(repo, "src", "app"));

    assert.equal(git(repo, "symbolic-ref", "--short", "HEAD").trim(), "knightcode/fix-the-parser");
    assert.equal(git(repo, "rev-parse", "HEAD").trim(), head);
    assert.equal(readFileSync(join(repo, "src", "app", "main.ts"), "utf8"), "one\n2\nthree\n");
    assert.equal(readFileSync(join(repo, "src", "app", "new.ts"), "utf8"), "new\n");
    assert.deepEqual([...readFileSync(join(repo, "data.bin"))], [...BINARY]);
    assert.equal(existsSync(join(repo, "README.md")), false);

    assert.equal(status(worktree), "", "the worktree is clean");
    assert.equal(git(worktree, "rev-parse", "--abbrev-ref", "HEAD").trim(), "HEAD", "and detached");
    assert.equal(git(worktree, "rev-parse", "HEAD").trim(), head);
    assert.deepEqual(handoffFiles(), [], "the saved patch goes once the changes landed");

    // The reloaded thread runs in the checkout now.
    model.enqueue({ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }, { text: "done" });
    await server.main.request("turn/start", { threadId: thread.id, text: "where?" });
    const call = await server.main.waitForNotification("item/completed", (p) => p.threadId === thread.id && p.item.type === "toolCall");
    assert.ok(JSON.stringify(call.item).includes(join(repo, "src", "app")));
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id);
    server.main.assertNoSchemaViolations();
  });

  test("the destination must be clean, and nothing moves when it is not", async () => {
    const repo = project();
    const { thread } = await server.main.request("thread/start", { cwd: repo, workspace: { mode: "worktree" } });
    await talk(thread.id, "hello");
    const worktree = thread.workspace.path!;
    write(worktree, { "README.md": "changed in the worktree\n" });
    write(repo, { "mine.txt": "the user's own\n" });
    const error = await rejects(server.main.request("thread/handoff", { threadId: thread.id, to: "local" }), "gitConflict", "localChanges");
    assert.equal(error.message, "Stash or commit your local changes to hand off.");
    assert.deepEqual(error.data?.paths, ["mine.txt"]);
    assert.equal(readFileSync(join(worktree, "README.md"), "utf8"), "changed in the worktree\n");
    assert.equal(git(repo, "symbolic-ref", "--short", "HEAD").trim(), "main");
    assert.equal(readFileSync(join(repo, "README.md"), "utf8"), "hello\n");
    const resumed = await server.main.request("thread/resume", { threadId: thread.id });
    assert.equal(resumed.thread.workspace.mode, "worktree", "the thread stays where it was");
  });

  test("there and back: the checkout's changes move into the worktree, detached at the checkout's HEAD; the next handoff fast-forwards the same branch", async () => {
    const repo = project();
    const { thread } = await server.main.request("thread/start", { cwd: repo, workspace: { mode: "worktree" } });
    await talk(thread.id, "Add a feature");
    const worktree = thread.workspace.path!;
    write(worktree, { "feature.ts": "v1\n" });
    const first = await server.main.request("thread/handoff", { threadId: thread.id, to: "local", branch: "feature/one" });
    assert.equal(first.branch, "feature/one");
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "feature v1");
    write(repo, { "feature.ts": "v2\n", "notes.md": "untracked\n" });

    const back = await server.main.request("thread/handoff", { threadId: thread.id, to: "worktree" });
    assert.equal(back.thread.workspace.mode, "worktree");
    assert.equal(back.thread.workspace.path, worktree, "its own worktree again");
    assert.equal(back.thread.cwd, worktree);
    assert.equal(status(repo), "", "the checkout gave its changes away");
    assert.equal(git(repo, "symbolic-ref", "--short", "HEAD").trim(), "feature/one", "and keeps its branch");
    assert.equal(git(worktree, "rev-parse", "HEAD").trim(), git(repo, "rev-parse", "HEAD").trim());
    assert.equal(readFileSync(join(worktree, "feature.ts"), "utf8"), "v2\n");
    assert.equal(readFileSync(join(worktree, "notes.md"), "utf8"), "untracked\n");

    git(worktree, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "-am", "feature v2");
    const head = git(worktree, "rev-parse", "HEAD").trim();
    const again = await server.main.request("thread/handoff", { threadId: thread.id, to: "local" });
    assert.equal(again.branch, "feature/one", "the previous handoff's branch, fast-forwarded");
    assert.equal(git(repo, "rev-parse", "feature/one").trim(), head);
    assert.equal(readFileSync(join(repo, "notes.md"), "utf8"), "untracked\n");
    server.main.assertNoSchemaViolations();
  });

  test("a thread born in the checkout gets a worktree; a branch named by the client that exists elsewhere is branchExists", async () => {
    const repo = project();
    const { thread } = await server.main.request("thread/start", { cwd: join(repo, "src") });
    await talk(thread.id, "Try something risky");
    write(repo, { "src/app/main.ts": "risky\n" });
    const moved = await server.main.request("thread/handoff", { threadId: thread.id, to: "worktree" });
    const worktree = moved.thread.workspace.path!;
    assert.ok(worktree.startsWith(join(realpathSync(server.agentDir), "worktrees")));
    assert.equal(moved.thread.cwd, join(worktree, "src"));
    assert.equal(readFileSync(join(worktree, "src", "app", "main.ts"), "utf8"), "risky\n");
    assert.equal(status(repo), "");
    const listed = await server.main.request("worktree/list", { cwd: repo });
    assert.ok(listed.worktrees.some((w) => w.path === worktree && w.threadIds.includes(thread.id)));

    git(repo, "branch", "taken", "HEAD");
    git(worktree, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "-am", "risky");
    await rejects(server.main.request("thread/handoff", { threadId: thread.id, to: "local", branch: "taken" }), "gitConflict", "branchExists");
    await rejects(server.main.request("thread/handoff", { threadId: thread.id, to: "local", branch: "bad..name" }), "invalidParams");
    assert.equal(readFileSync(join(worktree, "src", "app", "main.ts"), "utf8"), "risky\n");
  });

  test("refusals: no message yet, already on that side, outside git, a turn running in the checkout", async () => {
    const repo = project();
    const fresh = (await server.main.request("thread/start", { cwd: repo, workspace: { mode: "worktree" } })).thread;
    await rejects(server.main.request("thread/handoff", { threadId: fresh.id, to: "local" }), "invalidParams");
    await talk(fresh.id, "hi");
    await rejects(server.main.request("thread/handoff", { threadId: fresh.id, to: "worktree" }), "invalidParams");

    const plain = server.project({ "a.txt": "a\n" });
    const outside = (await server.main.request("thread/start", { cwd: plain })).thread;
    await talk(outside.id, "hi");
    await rejects(server.main.request("thread/handoff", { threadId: outside.id, to: "worktree" }), "notGitRepo");

    // Another thread of the checkout runs a turn: the handoff waits for nobody and is refused.
    const local = (await server.main.request("thread/start", { cwd: repo })).thread;
    await talk(local.id, "hi");
    const busy = (await server.main.request("thread/start", { cwd: repo })).thread;
    let release!: () => void;
    model.enqueue({ text: ["working", " on it"], pauseAfter: 1, gate: new Promise<void>((resolve) => (release = resolve)) });
    await server.main.request("turn/start", { threadId: busy.id, text: "long job" });
    await server.main.waitForNotification("turn/started", (p) => p.threadId === busy.id);
    await rejects(server.main.request("thread/handoff", { threadId: local.id, to: "worktree" }), "turnInProgress");
    release();
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === busy.id);
    await rejects(server.main.request("thread/handoff", { threadId: "no-such-thread", to: "local" }), "threadNotFound");
    assert.deepEqual(handoffFiles(), []);
  });

  test("changes that cannot land: recoveryRequired with the saved patch; nothing leaves the worktree and the checkout is back where it was", async () => {
    const repo = initRepo(join(server.home, `handoff-${++projects}`, "project"), { "README.md": "hello\n", ".gitignore": "*.log\n" });
    write(repo, { "debug.log": "the user's own log\n" });
    const { thread } = await server.main.request("thread/start", { cwd: repo, workspace: { mode: "worktree" } });
    await talk(thread.id, "Keep the logs");
    const worktree = thread.workspace.path!;
    // The worktree stops ignoring logs and adds one where the checkout has an ignored file of its own.
    write(worktree, { ".gitignore": "\n", "debug.log": "from the worktree\n" });
    const error = await rejects(server.main.request("thread/handoff", { threadId: thread.id, to: "local" }), "gitConflict", "recoveryRequired");
    const patch = error.data?.patch as string;
    assert.ok(existsSync(patch) && patch.startsWith(join(realpathSync(server.agentDir), "handoff")), patch);
    assert.match(readFileSync(patch, "utf8"), /debug\.log/);
    assert.equal(typeof error.data?.recoveryInstructions, "string");
    assert.equal(readFileSync(join(repo, "debug.log"), "utf8"), "the user's own log\n");
    assert.equal(git(repo, "symbolic-ref", "--short", "HEAD").trim(), "main", "the checkout is back on its branch");
    assert.equal(readFileSync(join(worktree, "debug.log"), "utf8"), "from the worktree\n");
    assert.equal(readFileSync(join(worktree, ".gitignore"), "utf8"), "\n");
    const resumed = await server.main.request("thread/resume", { threadId: thread.id });
    assert.equal(resumed.thread.cwd, worktree);
    rmSync(patch);
  });

  test("after every handoff above, no index copy is left in the server's TMPDIR and no saved patch in <agentDir>/handoff", async () => {
    const repo = project();
    const { thread } = await server.main.request("thread/start", { cwd: repo, workspace: { mode: "worktree" } });
    await talk(thread.id, "one more");
    write(thread.workspace.path!, { "z.txt": "z\n" });
    await server.main.request("thread/diff/read", { threadId: thread.id });
    await server.main.request("thread/handoff", { threadId: thread.id, to: "local" });
    assert.deepEqual(
      readdirSync(serverTmp).filter((name) => /index/.test(name)),
      [],
    );
    assert.deepEqual(handoffFiles(), []);
  });
});
