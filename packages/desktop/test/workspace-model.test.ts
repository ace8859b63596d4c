import { strict as assert } from "node:assert";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AppServerClient } from "@knightcode/app-server-client";
import type { ReviewCommentInput } from "@knightcode/app-server-protocol";
import { git, initRepo, waitUntil, writeFiles } from "@knightcode/testkit";
import { createWorkspaceModel, draftMessage, KEEP_SCRIPT_CHARS, type WorkspaceModel } from "../src/features/workspace/model.js";
import { asConnection, startInProcessServer, type InProcessServer } from "./feature-model-support.js";

/** The workspace model over a real in-process server and real git repositories: no page, no browser. */
describe("the workspace model", () => {
  let server: InProcessServer;
  let repos = 0;
  before(async () => {
    server = await startInProcessServer();
  });
  after(() => server.close());

  async function made(files: Record<string, string> = { "a.txt": "one\ntwo\nthree\n", "b.txt": "bee\n" }) {
    const client: AppServerClient = await server.client();
    const model: WorkspaceModel = createWorkspaceModel({ conn: () => asConnection(client) });
    const root = join(server.project, `repo-${++repos}`);
    mkdirSync(root, { recursive: true });
    initRepo(root, files);
    const { thread } = await client.request("thread/start", { cwd: root, approvalMode: "fullAccess" });
    return { client, model, root, threadId: thread.id };
  }

  test("a hunk staged by its id from an unstaged read; the commit takes only what is staged, with the model's drafted message", async () => {
    const { model, root, threadId } = await made();
    writeFiles(root, { "a.txt": "one\nTWO\nthree\n", "b.txt": "BEE\n" });
    const unstaged = await model.readDiff(threadId, { scope: "unstaged" });
    const hunk = unstaged?.files.find((f) => f.path === "a.txt")?.hunks[0];
    assert.ok(hunk, "a.txt has a hunk");
    await model.stage(threadId, { hunkId: hunk.id });
    const { status } = await model.readGit(threadId);
    assert.deepEqual([status.staged, status.unstaged], [1, 1]);
    server.model.enqueue({ text: "Capitalize two in a.txt" });
    const draft = await model.draftCommit(threadId, false);
    assert.deepEqual(draft, { message: "Capitalize two in a.txt" });
    assert.equal(git(root, "rev-list", "--count", "HEAD").trim(), "1", "a draft commits nothing");
    await model.commit(threadId, `${draft.message}, edited`, false);
    assert.equal(git(root, "log", "-1", "--format=%s").trim(), "Capitalize two in a.txt, edited");
    assert.equal(git(root, "show", "--name-only", "--format=", "HEAD").trim(), "a.txt");
    assert.equal(git(root, "status", "--porcelain").trim(), "M b.txt");
  });

  test("when no model can write the message, the draft lists the files and says why", async () => {
    const { model, root, threadId } = await made();
    writeFiles(root, { "b.txt": "BEE\n" });
    server.model.enqueue({ status: 500, body: { error: { message: "down" } } });
    const draft = await model.draftCommit(threadId, true);
    assert.equal(draft.message, "Update b.txt");
    assert.match(draft.note ?? "", /^The model could not write a message \(.+\): this draft only lists the files\.$/);
    await assert.rejects(
      model.draftCommit(threadId, false),
      (error: { code?: string }) => error.code === "invalidParams",
      "nothing staged is the repository's problem, not the model's",
    );
  });

  test("a turn's change is announced, read as the last turn, and undone", async () => {
    const { client, model, root, threadId } = await made();
    let announced = 0;
    const stop = model.onFilesChanged(threadId, () => announced++);
    try {
      server.model.enqueue({ toolCalls: [{ name: "write", arguments: { path: "c.txt", content: "sea\n" } }] }, { text: "written" });
      const done = client.waitFor("turn/completed", (p) => p.threadId === threadId);
      await client.request("turn/start", { threadId, text: "write c" });
      await done;
      await waitUntil("the change announced", () => announced > 0);
      const last = await model.readDiff(threadId, { scope: "lastTurn" });
      assert.deepEqual(
        last?.files.map((f) => f.path),
        ["c.txt"],
      );
      await model.revert(threadId, { scope: "lastTurn", turnId: last!.turnId! });
      assert.throws(() => readFileSync(join(root, "c.txt")), "the turn's file is gone");
      assert.equal(await model.readDiff(threadId, { scope: "committed" }), undefined, "no commit chosen: nothing to read");
    } finally {
      stop();
    }
  });

  test("review comments: taken by a send, back in the list when the server refuses them", async () => {
    const { model, threadId } = await made();
    const comment: ReviewCommentInput = { path: "a.txt", hunkId: "gone", startLine: 1, endLine: 1, text: "why?" };
    model.addComment(threadId, comment);
    model.addComment(threadId, { ...comment, text: "and this" });
    model.removeComment(threadId, 1);
    await assert.rejects(
      model.sendComments(threadId, false, "Please address my review comments."),
      (error: { code?: string }) => error.code === "invalidParams",
    );
    assert.deepEqual(model.comments(threadId).value, [comment]);
  });

  test("a handoff to a worktree with an environment: its setup output is collected for the thread, and the thread moves", async () => {
    const environments = { environments: [{ name: "greet", setup: { default: "echo hello-from-setup" } }] };
    const { client, model, root, threadId } = await made({ "a.txt": "one\n", ".knightcode/environments.json": JSON.stringify(environments) });
    await client.request("project/trust/set", { cwd: root, trusted: true });
    const stop = model.watchProgress();
    const again = model.watchProgress();
    try {
      const listed = await model.environments(root);
      assert.deepEqual(
        listed.environments.map((e) => e.name),
        ["greet"],
      );
      // The thread must have a turn before it can move; a plain reply is enough.
      server.model.enqueue({ text: "hi" });
      const done = client.waitFor("turn/completed", (p) => p.threadId === threadId);
      await client.request("turn/start", { threadId, text: "hello" });
      await done;
      await model.handoff(threadId, { to: "worktree", environment: "greet" });
      const log = await waitUntil("the setup script's log, ended", () => {
        const value = model.scriptLog(threadId).value;
        return value?.done ? value : undefined;
      });
      assert.equal(log.phase, "setup");
      assert.match(log.output, /hello-from-setup/);
      assert.equal(log.exitCode, 0);
      const { worktrees } = await model.listWorktrees(root);
      assert.equal(worktrees.length, 1, "the project has the thread's worktree");
    } finally {
      again();
      stop();
    }
    assert.ok(KEEP_SCRIPT_CHARS >= 100_000);
  });

  test("draftMessage names the files and their counts", () => {
    const file = (path: string, status: "added" | "modified") => ({ path, status, binary: false, additions: 2, deletions: 1, hunks: [] });
    assert.equal(draftMessage([]), "");
    assert.equal(draftMessage([file("src/a.ts", "modified")]), "Update a.ts");
    assert.equal(draftMessage([file("a.ts", "modified"), file("b.ts", "added")]), "Change a.ts and b.ts\n\n- a.ts (+2 -1)\n- b.ts (+2 -1)");
  });
});
