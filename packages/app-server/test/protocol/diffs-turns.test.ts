import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";
import { failure, lines, makeRepo, runTurn, scriptTurn } from "./diffs-support.js";

/**
 * spec: Workspaces, diffs and git (turn/diff/updated, Turn.files, the
 * lastTurn scope and its undo), with a scripted model whose tool calls
 * edit a real repository.
 */

let model: ScriptedModelServer;
let server: TestServer;
before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model });
});
after(async () => {
  await server.close();
  await model.close();
});

describe("spec: turn/diff/updated and Turn.files", () => {
  test("after turn/completed: net totals per file between the working tree before and after the turn; read back as Turn.files", async () => {
    const repo = makeRepo(server, { "a.txt": lines(5), "gone.txt": "x\ny\n" });
    repo.write("untouched-untracked.txt", "already here\n");
    const { thread } = await server.main.request("thread/start", { cwd: repo.root, approvalMode: "fullAccess" });
    scriptTurn(
      model,
      { name: "edit", arguments: { path: "a.txt", oldText: "line 2\n", newText: "line two\nline 2.5\n" } },
      { name: "write", arguments: { path: "new.txt", content: "n1\nn2\n" } },
      { name: "bash", arguments: { command: "rm gone.txt && printf 'tmp\\n' > tmp.txt && rm tmp.txt" } },
    );
    const { turnId, mark } = await runTurn(server, thread.id, "change things");
    const updated = await server.main.waitForNotification("turn/diff/updated", (p) => p.threadId === thread.id, { since: mark });
    assert.equal(updated.turnId, turnId);
    assert.deepEqual(updated.files, [
      { path: "a.txt", additions: 2, deletions: 1 },
      { path: "gone.txt", additions: 0, deletions: 2 },
      { path: "new.txt", additions: 2, deletions: 0 },
    ]);
    const order = server.main.notifications.slice(mark).map((n) => n.method);
    assert.ok(order.indexOf("turn/completed") < order.indexOf("turn/diff/updated"), "turn/diff/updated follows turn/completed");
    const { turns } = await server.main.request("thread/read", { threadId: thread.id });
    assert.deepEqual(turns.find((t) => t.id === turnId)?.files, updated.files);
    assert.match(repo.git("for-each-ref", `refs/knightcode/turns/${thread.id}`), /commit/, "a ref keeps the turn's trees");
    assert.equal(repo.git("status", "--porcelain", "--", "a.txt").trim(), "M a.txt", "the index was not touched");

    // A turn that changes nothing sends none.
    model.enqueue({ text: "nothing to do" });
    const quiet = await runTurn(server, thread.id, "just talk");
    await server.main.request("thread/diff/read", { threadId: thread.id });
    assert.equal(server.main.notifications.slice(quiet.mark).filter((n) => n.method === "turn/diff/updated").length, 0);
    const lastTurn = await server.main.request("thread/diff/read", { threadId: thread.id, scope: "lastTurn" });
    assert.deepEqual([lastTurn.turnId, lastTurn.files], [quiet.turnId, []]);

    // Deleting the thread lets its snapshots go: nothing keeps them for an undo any more.
    await server.main.request("thread/archive", { threadId: thread.id });
    await server.main.request("thread/delete", { threadId: thread.id });
    assert.equal(repo.git("for-each-ref", `refs/knightcode/turns/${thread.id}`).trim(), "", "the turn ref outlived its thread");
    server.assertNoSchemaViolations();
  });

  test("a tool call waits for the turn's first snapshot: a write at once, while the snapshot is slow, still counts", async () => {
    // A clean filter that takes a second makes the snapshot (which adds the untracked slow.txt) slower than the model's reply.
    const repo = makeRepo(server, { "a.txt": "a\n", ".gitattributes": "slow.txt filter=slow\n" });
    repo.git("config", "filter.slow.clean", "sleep 1 && cat");
    repo.write("slow.txt", "slow\n");
    const { thread } = await server.main.request("thread/start", { cwd: repo.root, approvalMode: "fullAccess" });
    scriptTurn(model, { name: "write", arguments: { path: "a.txt", content: "A\nB\n" } });
    const { mark } = await runTurn(server, thread.id, "write at once");
    const updated = await server.main.waitForNotification("turn/diff/updated", (p) => p.threadId === thread.id, { since: mark });
    assert.deepEqual(updated.files, [{ path: "a.txt", additions: 2, deletions: 1 }]);
  });

  test("outside git no snapshot is taken and nothing is sent", async () => {
    const cwd = server.project({ "a.txt": "a\n" });
    const { thread } = await server.main.request("thread/start", { cwd, approvalMode: "fullAccess" });
    scriptTurn(model, { name: "write", arguments: { path: "a.txt", content: "b\n" } });
    const { mark, turnId } = await runTurn(server, thread.id, "edit");
    // The thread is idle again once the turn's bookkeeping is done: a second turn can start.
    model.enqueue({ text: "ok" });
    await runTurn(server, thread.id, "again");
    assert.equal(server.main.notifications.slice(mark).filter((n) => n.method === "turn/diff/updated").length, 0);
    const { turns } = await server.main.request("thread/read", { threadId: thread.id });
    assert.equal(turns.find((t) => t.id === turnId)?.files, undefined);
  });
});

describe("spec: the lastTurn scope and its undo", () => {
  test("undo only while the files are as the turn left them, reapply only while as it found them, the turnId guard, stale reads", async () => {
    const repo = makeRepo(server, { "a.txt": lines(10), "keep.txt": "keep\n" });
    const { thread } = await server.main.request("thread/start", { cwd: repo.root, approvalMode: "fullAccess" });
    scriptTurn(
      model,
      { name: "edit", arguments: { path: "a.txt", oldText: "line 3\n", newText: "line three\n" } },
      { name: "write", arguments: { path: "made.txt", content: "made\n" } },
    );
    const { turnId, mark } = await runTurn(server, thread.id, "edit");
    await server.main.waitForNotification("turn/diff/updated", (p) => p.threadId === thread.id, { since: mark });
    const diff = await server.main.request("thread/diff/read", { threadId: thread.id, scope: "lastTurn" });
    assert.deepEqual(
      [diff.turnId, diff.stale, diff.files.map((f) => [f.path, f.status])],
      [
        turnId,
        false,
        [
          ["a.txt", "modified"],
          ["made.txt", "added"],
        ],
      ],
    );

    repo.write("made.txt", "the user changed it\n");
    assert.equal((await server.main.request("thread/diff/read", { threadId: thread.id, scope: "lastTurn" })).stale, true);
    const refused = await failure(server, "thread/diff/revert", { threadId: thread.id, scope: "lastTurn", turnId });
    assert.deepEqual([refused.code, refused.data?.reason, refused.data?.paths], ["gitConflict", "diffChanged", ["made.txt"]]);
    assert.equal(repo.read("a.txt"), lines(10).replace("line 3\n", "line three\n"), "a refused undo changes nothing");

    repo.write("made.txt", "made\n");
    const wrongTurn = await failure(server, "thread/diff/revert", { threadId: thread.id, scope: "lastTurn", turnId: "an-older-turn" });
    assert.deepEqual([wrongTurn.code, wrongTurn.data?.reason], ["gitConflict", "diffChanged"]);
    assert.deepEqual(await server.main.request("thread/diff/revert", { threadId: thread.id, scope: "lastTurn", turnId }), { paths: ["a.txt", "made.txt"] });
    assert.equal(repo.read("a.txt"), lines(10));
    assert.throws(() => repo.read("made.txt"), /ENOENT/);
    assert.equal((await server.main.request("thread/diff/read", { threadId: thread.id, scope: "lastTurn" })).stale, true);

    repo.write("a.txt", lines(10).replace("line 9\n", "user line 9\n"));
    const notAsFound = await failure(server, "thread/diff/revert", { threadId: thread.id, scope: "lastTurn", reapply: true });
    assert.deepEqual([notAsFound.data?.reason, notAsFound.data?.paths], ["diffChanged", ["a.txt"]]);
    repo.write("a.txt", lines(10));
    assert.deepEqual(await server.main.request("thread/diff/revert", { threadId: thread.id, scope: "lastTurn", reapply: true, path: "made.txt" }), {
      paths: ["made.txt"],
    });
    assert.equal(repo.read("made.txt"), "made\n");
    await server.main.request("thread/diff/revert", { threadId: thread.id, scope: "lastTurn", reapply: true, path: "a.txt" });
    assert.equal((await server.main.request("thread/diff/read", { threadId: thread.id, scope: "lastTurn" })).stale, false);

    // One hunk of the turn; git refuses it once the lines moved on.
    const hunk = (await server.main.request("thread/diff/read", { threadId: thread.id, scope: "lastTurn" })).files[0]!.hunks[0]!;
    repo.write("a.txt", lines(10).replace("line 3\n", "line 3 by the user\n"));
    const failed = await failure(server, "thread/diff/revert", { threadId: thread.id, scope: "lastTurn", hunkId: hunk.id });
    assert.deepEqual([failed.code, failed.data?.reason, failed.data?.paths], ["gitConflict", "patchFailed", ["a.txt"]]);
    assert.match(String(failed.data?.output), /a\.txt/);
    repo.write("a.txt", lines(10).replace("line 3\n", "line three\n"));
    assert.deepEqual(await server.main.request("thread/diff/revert", { threadId: thread.id, scope: "lastTurn", hunkId: hunk.id }), { paths: ["a.txt"] });
    assert.equal(repo.read("a.txt"), lines(10));
    server.assertNoSchemaViolations();
  });

  test("a revert, a stage and an unstage are refused with turnInProgress while a turn runs in the checkout, from any thread there", async () => {
    const repo = makeRepo(server, { "a.txt": "a\n" });
    repo.write("a.txt", "A\n");
    const { thread } = await server.main.request("thread/start", { cwd: repo.root, approvalMode: "fullAccess" });
    const { thread: other } = await server.main.request("thread/start", { cwd: repo.root });
    let release!: () => void;
    model.enqueue({ text: ["thinking", " more"], pauseAfter: 1, gate: new Promise<void>((resolve) => (release = resolve)) });
    const mark = server.main.notifications.length;
    const requests = model.requests.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "hang" });
    await model.waitForRequests(requests + 1);
    for (const [method, params] of [
      ["thread/diff/revert", { threadId: thread.id }],
      ["thread/diff/revert", { threadId: other.id, path: "a.txt" }],
      ["git/stage", { threadId: other.id }],
      ["git/unstage", { threadId: thread.id }],
    ] as const) {
      assert.equal((await failure(server, method, params)).code, "turnInProgress", `${method} ${JSON.stringify(params)}`);
    }
    assert.equal(repo.read("a.txt"), "A\n");
    assert.equal((await server.main.request("thread/diff/read", { threadId: other.id })).files.length, 1, "reads take no lock");
    release();
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
    // Right after turn/completed: a change waits out the turn's last bookkeeping instead of being refused.
    assert.deepEqual(await server.main.request("thread/diff/revert", { threadId: other.id, path: "a.txt" }), { paths: ["a.txt"] });
    assert.equal(repo.read("a.txt"), "a\n");
  });
});
