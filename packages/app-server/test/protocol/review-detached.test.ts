import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import type { ItemOf } from "@knightcode/app-server-protocol";
import { TestServer } from "../support/harness.js";
import { lines, makeRepo, runTurn, type Repo } from "./diffs-support.js";

/**
 * Beyond the spec: a detached review (docs/review.md). review/start with
 * delivery "detached" runs the review in a new child thread of the thread:
 * listed under it, heard by its opted-in subscribers with parentThreadId,
 * archived with it; the parent's own history does not change. Its findings
 * apply by the child's id, and go back as comments on the parent's turn.
 */

let model: ScriptedModelServer;
let server: TestServer;
let repo: Repo;
let parentId: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = new TestServer({ model });
  // Opted in: a subscriber of the parent hears the child's notifications.
  await server.main.client.initialize({ clientInfo: { name: "review-detached" }, capabilities: { subagents: true } });
  repo = makeRepo(server, { "src/a.ts": lines(20) });
  parentId = (await server.main.request("thread/start", { cwd: repo.root })).thread.id;
  await server.main.request("thread/settings/update", { threadId: parentId, approvalMode: "fullAccess" });
  model.enqueue({ text: "hello back" });
  await runTurn(server, parentId, "hello");
});
after(async () => {
  await server.close();
  await model.close();
});

type Heard = { threadId: string; parentThreadId?: string; item: ItemOf<"reviewFinding"> };

/** Starts a detached review and waits for the child's turn to end, as the parent's subscriber hears it. */
async function detachedReview(params: Record<string, unknown>): Promise<{ childId: string; findings: Heard[] }> {
  const mark = server.main.notifications.length;
  const answer = await server.main.request("review/start", { threadId: parentId, delivery: "detached", ...params } as never);
  assert.notEqual(answer.threadId, parentId);
  const childId = answer.threadId;
  const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === childId, { since: mark });
  assert.equal((done as { parentThreadId?: string }).parentThreadId, parentId);
  assert.equal(done.turn.id, answer.turn.id);
  assert.equal(done.turn.status, "completed");
  const findings = server.main.notifications
    .slice(mark)
    .filter((n) => n.method === "item/completed")
    .map((n) => n.params as Heard)
    .filter((p) => p.item.type === "reviewFinding");
  return { childId, findings };
}

describe("beyond the spec: a detached review", () => {
  test("findings arrive on the child, heard through the parent; the child is listed under it; the parent's history is untouched; a suggestion applies by the child's id", async () => {
    // The turns and their items; a turn's `files` may arrive later, once its snapshot is written.
    const history = async () =>
      (await server.main.request("thread/read", { threadId: parentId })).turns.map((t) => [
        t.id,
        t.status,
        t.items?.map((item) => ("type" in item ? item.type : "ref")),
      ]);
    const before = await history();
    repo.write("src/a.ts", lines(20).replace("line 8\n", "line eight\n"));
    const hunkId = (await server.main.request("thread/diff/read", { threadId: parentId, scope: "uncommitted" })).files[0]!.hunks[0]!.id;
    const finding = { path: "src/a.ts", hunkId, startLine: 8, endLine: 8, severity: "medium", title: "Digits", body: "Keep digits.", suggestion: "line 8\n" };
    model.enqueue({ toolCalls: [{ id: "d1", name: "report_finding", arguments: finding }] }, { text: "Reviewed." });
    const requests = model.requests.length;
    const { childId, findings } = await detachedReview({ scope: "uncommitted", focus: "naming" });

    assert.ok((model.requests[requests]!.body.tools as { function: { name: string } }[]).some((t) => t.function.name === "report_finding"));
    assert.deepEqual(
      findings.map((p) => [p.threadId, p.parentThreadId, p.item.hunkId, p.item.startLine, p.item.suggestion]),
      [[childId, parentId, hunkId, 8, "line 8\n"]],
    );
    const listed = (await server.main.request("thread/list", { parentThreadId: parentId })).threads;
    assert.deepEqual(
      listed.map((t) => t.id),
      [childId],
    );
    const child = (await server.main.request("thread/read", { threadId: childId })).thread as { parentThreadId?: string; cwd: string };
    assert.equal(child.parentThreadId, parentId);
    assert.equal(child.cwd, repo.root);
    assert.deepEqual(await history(), before);

    const applied = await server.main.request("review/finding/apply", { threadId: childId, findingId: findings[0]!.item.findingId });
    assert.deepEqual(applied.paths, ["src/a.ts"]);
    assert.equal(readFileSync(join(repo.root, "src/a.ts"), "utf8"), lines(20));
    server.assertNoSchemaViolations();
  });

  test("a commit's finding goes back as a comment on the parent's next turn, its hunk found through the child", async () => {
    repo.write("src/a.ts", lines(20).replace("line 3\n", "line three\n"));
    repo.git("commit", "-q", "-am", "three");
    const commit = repo.git("rev-parse", "HEAD").trim();
    const hunkId = (await server.main.request("thread/diff/read", { threadId: parentId, scope: "committed", commit })).files[0]!.hunks[0]!.id;
    const finding = { path: "src/a.ts", hunkId, startLine: 3, endLine: 3, severity: "low", title: "Words", body: "A word for a digit." };
    model.enqueue({ toolCalls: [{ id: "d2", name: "report_finding", arguments: finding }] }, { text: "Reviewed." });
    const { findings } = await detachedReview({ scope: "commit", commit });
    const { path, side, startLine, endLine } = findings[0]!.item;

    model.enqueue({ text: "fixed" });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: parentId, text: "Fix it.", comments: [{ path, hunkId, side, startLine, endLine, text: "As found." }] });
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === parentId, { since: mark });
    const user = server.main
      .notificationsOf("item/completed")
      .filter((p) => p.threadId === parentId)
      .map((p) => p.item)
      .reverse()
      .find((item): item is ItemOf<"userMessage"> => item.type === "userMessage" && !("payloadRef" in item));
    assert.deepEqual(user?.comments, [{ path: "src/a.ts", side: "new", startLine: 3, endLine: 3, text: "As found.", quote: "+line three" }]);
    server.assertNoSchemaViolations();
  });

  test("archiving the parent archives its detached reviews", async () => {
    const children = (await server.main.request("thread/list", { parentThreadId: parentId })).threads.map((t) => t.id);
    assert.equal(children.length, 2);
    await server.main.request("thread/archive", { threadId: parentId });
    assert.deepEqual((await server.main.request("thread/list", { parentThreadId: parentId })).threads, []);
    const archived = (await server.main.request("thread/list", { parentThreadId: parentId, archived: true })).threads.map((t) => t.id);
    assert.deepEqual([...archived].sort(), [...children].sort());
  });
});
