import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import type { Turn } from "@knightcode/app-server-protocol";
import { startServer, type TestServer } from "../support/harness.js";
import { failure, lines, makeRepo, runTurn, scriptTurn, type Repo, type ToolCall } from "./diffs-support.js";

/**
 * Beyond the spec: thread/rewind takes a thread back to just before one of
 * its turns (its conversation, its code or both), and thread/fork forks at
 * a turn, into a worktree holding the code as that turn found it. Real
 * git, the real binary, edits through the edit and write tools and bash.
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

const bash = (command: string): ToolCall => ({ name: "bash", arguments: { command } });

async function turnOf(threadId: string, text: string, ...calls: ToolCall[]): Promise<string> {
  scriptTurn(model, ...calls);
  return (await runTurn(server, threadId, text)).turnId;
}

/**
 * Three turns over a.txt (lines), b.txt, d.txt and tool.sh: the first edits
 * a.txt and makes bash1.txt with bash; the second writes c.txt, and with
 * bash deletes b.txt, renames d.txt to e.txt and makes tool.sh executable;
 * the third edits a.txt again and appends to c.txt with bash.
 */
async function threeTurns(repo: Repo): Promise<{ threadId: string; turns: [string, string, string] }> {
  const { thread } = await server.main.request("thread/start", { cwd: repo.root, approvalMode: "fullAccess" });
  const turns: [string, string, string] = [
    await turnOf(
      thread.id,
      "ask-one",
      { name: "edit", arguments: { path: "a.txt", oldText: "line 2\n", newText: "line two\n" } },
      bash("printf 'made by bash\\n' > bash1.txt"),
    ),
    await turnOf(
      thread.id,
      "ask-two",
      { name: "write", arguments: { path: "c.txt", content: "c1\n" } },
      bash("rm b.txt && mv d.txt e.txt && chmod +x tool.sh"),
    ),
    await turnOf(
      thread.id,
      "ask-three",
      { name: "edit", arguments: { path: "a.txt", oldText: "line 4\n", newText: "line four\n" } },
      bash("printf 'c2\\n' >> c.txt"),
    ),
  ];
  // A lastTurn read answers once the last turn's snapshot is kept.
  await server.main.request("thread/diff/read", { threadId: thread.id, scope: "lastTurn" });
  return { threadId: thread.id, turns };
}

function threeTurnRepo(): Repo {
  const repo = makeRepo(server, { "a.txt": lines(5), "b.txt": "b\n", "d.txt": "d\n", "tool.sh": "echo tool\n" });
  assert.equal(statSync(join(repo.root, "tool.sh")).mode & 0o111, 0);
  return repo;
}

/** The files as the first turn left them: what a rewind to the second turn restores. */
function assertAsAfterFirstTurn(root: string): void {
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), lines(5).replace("line 2\n", "line two\n"));
  assert.equal(readFileSync(join(root, "bash1.txt"), "utf8"), "made by bash\n", "the first turn's bash edit stays");
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "b\n", "deleted by bash, back");
  assert.equal(readFileSync(join(root, "d.txt"), "utf8"), "d\n", "renamed by bash, back under its old name");
  assert.equal(existsSync(join(root, "e.txt")), false);
  assert.equal(existsSync(join(root, "c.txt")), false, "created by the write tool and grown by bash, gone");
  assert.equal(statSync(join(root, "tool.sh")).mode & 0o111, 0, "its mode back");
}

const REWOUND_FILES = [
  { path: "a.txt", status: "modified" },
  { path: "b.txt", status: "added" },
  { path: "c.txt", status: "deleted" },
  { path: "d.txt", status: "added" },
  { path: "e.txt", status: "deleted" },
  { path: "tool.sh", status: "modified" },
];

/** The user's texts of each turn. */
const userTexts = (threadTurns: readonly Turn[]) =>
  threadTurns.map((turn) => (turn.items ?? []).flatMap((item) => (item.type === "userMessage" && "text" in item ? [item.text] : [])));

/** The user texts of the model's last request. */
function lastRequestTexts(): string {
  return JSON.stringify(model.requests.at(-1)!.body.messages);
}

describe("beyond the spec: thread/rewind", () => {
  test("code: every file the undone turns changed, through the tools and bash, as the turn found it; the conversation stays", async () => {
    const repo = threeTurnRepo();
    const { threadId, turns } = await threeTurns(repo);
    const mark = server.main.notifications.length;
    const answer = await server.main.request("thread/rewind", { threadId, turnId: turns[1], mode: "code" });
    assert.deepEqual(answer, { files: REWOUND_FILES });
    assertAsAfterFirstTurn(repo.root);
    const note = await server.main.waitForNotification("thread/rewound", (p) => p.threadId === threadId, { since: mark });
    assert.deepEqual([note.turnId, note.mode, note.files], [turns[1], "code", REWOUND_FILES]);
    assert.deepEqual(repo.git("status", "--porcelain").split("\n").filter(Boolean), [" M a.txt", "?? bash1.txt"]);
    const history = await server.main.request("thread/read", { threadId });
    assert.deepEqual(userTexts(history.turns), [["ask-one"], ["ask-two"], ["ask-three"]]);
    server.assertNoSchemaViolations();
  });

  test("conversation: a new branch before the turn; the old one stays readable; the next request leaves the undone turns out", async () => {
    const repo = threeTurnRepo();
    const { threadId, turns } = await threeTurns(repo);
    const onDisk = repo.read("a.txt");
    const mark = server.main.notifications.length;
    const answer = await server.main.request("thread/rewind", { threadId, turnId: turns[1], mode: "conversation" });
    assert.deepEqual(answer.files, []);
    assert.ok(answer.previousLeafId);
    assert.equal(repo.read("a.txt"), onDisk, "the code stays");
    await server.main.waitForNotification("thread/replaced", (p) => p.threadId === threadId, { since: mark });
    const note = await server.main.waitForNotification("thread/rewound", (p) => p.threadId === threadId, { since: mark });
    assert.deepEqual([note.mode, note.previousLeafId], ["conversation", answer.previousLeafId]);

    assert.deepEqual(userTexts((await server.main.request("thread/read", { threadId })).turns), [["ask-one"]]);
    const old = await server.main.request("thread/read", { threadId, leafId: answer.previousLeafId! });
    assert.deepEqual(userTexts(old.turns), [["ask-one"], ["ask-two"], ["ask-three"]], "the old branch, whole");
    const bad = await failure(server, "thread/read", { threadId, leafId: "no-such-entry" });
    assert.equal(bad.code, "invalidParams");

    await turnOf(threadId, "ask-four");
    const sent = lastRequestTexts();
    assert.ok(sent.includes("ask-one") && sent.includes("ask-four"), sent);
    assert.ok(!sent.includes("ask-two") && !sent.includes("ask-three"), "the undone turns are not sent");
    assert.deepEqual(userTexts((await server.main.request("thread/read", { threadId })).turns), [["ask-one"], ["ask-four"]]);
    const listed = (await server.main.request("thread/list", { cwd: repo.root })).threads.find((t) => t.id === threadId)!;
    const resumed = await server.main.request("thread/resume", { threadId });
    assert.equal(listed.title, resumed.thread.name, "the listing and the thread agree on its name");
    server.assertNoSchemaViolations();
  });

  test("conversation to the first turn: the listing's title and the thread's name stay as they were", async () => {
    const repo = threeTurnRepo();
    const { threadId, turns } = await threeTurns(repo);
    await server.main.request("thread/rewind", { threadId, turnId: turns[0], mode: "conversation" });
    assert.deepEqual((await server.main.request("thread/read", { threadId })).turns, []);
    await turnOf(threadId, "a new start");
    const listed = (await server.main.request("thread/list", { cwd: repo.root })).threads.find((t) => t.id === threadId)!;
    const resumed = await server.main.request("thread/resume", { threadId });
    assert.deepEqual([listed.title, resumed.thread.name], ["ask-one", "ask-one"]);
    server.assertNoSchemaViolations();
  });

  test("both: the code, then the conversation", async () => {
    const repo = threeTurnRepo();
    const { threadId, turns } = await threeTurns(repo);
    const answer = await server.main.request("thread/rewind", { threadId, turnId: turns[1], mode: "both" });
    assert.deepEqual(answer.files, REWOUND_FILES);
    assert.ok(answer.previousLeafId);
    assertAsAfterFirstTurn(repo.root);
    assert.deepEqual(userTexts((await server.main.request("thread/read", { threadId })).turns), [["ask-one"]]);
    await turnOf(threadId, "ask-again");
    const sent = lastRequestTexts();
    assert.ok(sent.includes("ask-again") && !sent.includes("ask-two") && !sent.includes("ask-three"), sent);
    server.assertNoSchemaViolations();
  });

  test("a file edited since the last undone turn refuses the rewind, naming it, and changes nothing; force overrides", async () => {
    const repo = threeTurnRepo();
    const { threadId, turns } = await threeTurns(repo);
    repo.write("c.txt", "c1\nc2\nby the user\n");
    const a = repo.read("a.txt");
    for (const mode of ["code", "both"] as const) {
      const refused = await failure(server, "thread/rewind", { threadId, turnId: turns[1], mode });
      assert.equal(refused.code, "gitConflict");
      assert.deepEqual(refused.data, { reason: "diffChanged", paths: ["c.txt"] });
      assert.equal(repo.read("a.txt"), a, "nothing changed");
      assert.equal(repo.read("c.txt"), "c1\nc2\nby the user\n");
    }
    assert.equal((await server.main.request("thread/read", { threadId })).turns.length, 3, "the conversation did not move either");
    const forced = await server.main.request("thread/rewind", { threadId, turnId: turns[1], mode: "code", force: true });
    assert.deepEqual(forced.files, REWOUND_FILES);
    assertAsAfterFirstTurn(repo.root);
    server.assertNoSchemaViolations();
  });

  test("an unknown turn, a running turn, a folder outside git and a turn without a snapshot are refused", async () => {
    const repo = threeTurnRepo();
    const { threadId, turns } = await threeTurns(repo);
    const unknown = await failure(server, "thread/rewind", { threadId, turnId: "no-such-turn", mode: "both" });
    assert.equal(unknown.code, "invalidParams");
    assert.match(unknown.message, /no-such-turn is not a turn of thread/);

    let release = () => {};
    model.enqueue({ text: ["wait", "ing"], pauseAfter: 1, gate: new Promise<void>((resolve) => (release = resolve)) });
    const mark = server.main.notifications.length;
    const requests = model.requests.length;
    await server.main.request("turn/start", { threadId, text: "long" });
    await model.waitForRequests(requests + 1);
    for (const mode of ["conversation", "code", "both"] as const) {
      const busy = await failure(server, "thread/rewind", { threadId, turnId: turns[1], mode });
      assert.equal(busy.code, "turnInProgress");
    }
    release();
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark });
    assert.equal(repo.read("c.txt"), "c1\nc2\n");

    const plain = realpathSync(server.project({ "notes.txt": "n\n" }));
    const { thread } = await server.main.request("thread/start", { cwd: plain, approvalMode: "fullAccess" });
    const outside = await turnOf(thread.id, "no git here", { name: "write", arguments: { path: "notes.txt", content: "changed\n" } });
    const notGit = await failure(server, "thread/rewind", { threadId: thread.id, turnId: outside, mode: "code" });
    assert.equal(notGit.code, "notGitRepo");
    execFileSync("git", ["init", "-q"], { cwd: plain, env: { ...process.env, HOME: server.home, GIT_CONFIG_NOSYSTEM: "1" } });
    const none = await failure(server, "thread/rewind", { threadId: thread.id, turnId: outside, mode: "code" });
    assert.equal(none.code, "invalidParams");
    assert.match(none.message, /has no snapshot of the working tree/);
    // The conversation needs no snapshot.
    assert.deepEqual((await server.main.request("thread/rewind", { threadId: thread.id, turnId: outside, mode: "conversation" })).files, []);
    server.assertNoSchemaViolations();
  });
});

describe("beyond the spec: thread/fork at a turn", () => {
  test("into a worktree: its files are as the turn found them, its history stops before the turn; the source is untouched", async () => {
    const repo = threeTurnRepo();
    const { threadId, turns } = await threeTurns(repo);
    const forked = await server.main.request("thread/fork", { threadId, turnId: turns[1], workspace: { mode: "worktree" } });
    const path = forked.thread.workspace.path!;
    assert.equal(forked.thread.workspace.mode, "worktree");
    assert.notEqual(path, repo.root);
    assertAsAfterFirstTurn(path);
    assert.deepEqual(userTexts((await server.main.request("thread/read", { threadId: forked.thread.id })).turns), [["ask-one"]]);
    assert.equal(repo.read("c.txt"), "c1\nc2\n", "the source's files stay");
    assert.equal((await server.main.request("thread/read", { threadId })).turns.length, 3);

    const local = await server.main.request("thread/fork", { threadId, turnId: turns[2] });
    assert.deepEqual(userTexts((await server.main.request("thread/read", { threadId: local.thread.id })).turns), [["ask-one"], ["ask-two"]]);
    assert.equal(local.thread.cwd, repo.root);
    await turnOf(local.thread.id, "ask-fork");
    const sent = lastRequestTexts();
    assert.ok(sent.includes("ask-two") && !sent.includes("ask-three"), sent);

    const unknown = await failure(server, "thread/fork", { threadId, turnId: "no-such-turn" });
    assert.equal(unknown.code, "invalidParams");
    server.assertNoSchemaViolations();
  });
});
