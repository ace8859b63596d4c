import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import type { Item, ItemOf } from "@knightcode/app-server-protocol";
import { startServer, type TestServer } from "../support/harness.js";
import { failure, lines, makeRepo, runTurn, scriptTurn, type Repo } from "./diffs-support.js";

/**
 * Beyond the spec: review turns (docs/review.md). review/start reads a diff
 * scope with hunk ids and starts a turn offering report_finding; findings
 * land on real hunks as reviewFinding items, saved in the transcript; a
 * suggestion applies as a checked patch; a finding goes back as a comment.
 */

let model: ScriptedModelServer;
let server: TestServer;
let repo: Repo;
let threadId: string;
let featureCommit: string;
/** The server a restart replaced: it owns the home the next one reuses, so it removes it last. */
let replaced: TestServer | undefined;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model });
  repo = makeRepo(server, { "src/a.ts": lines(20), "src/b.ts": lines(6, "b") });
  repo.git("checkout", "-q", "-b", "feature");
  repo.write("src/a.ts", lines(20).replace("line 8\n", "line eight\nline 8.5\n"));
  repo.git("commit", "-q", "-am", "feature");
  featureCommit = repo.git("rev-parse", "HEAD").trim();
  threadId = (await server.main.request("thread/start", { cwd: repo.root })).thread.id;
});
after(async () => {
  await server.close();
  replaced?.cleanup();
  await model.close();
});

type Finding = { path: string; hunkId: string; startLine: number; endLine: number; severity: string; title: string; body: string; suggestion?: string };

const call = (id: string, finding: Finding) => ({ id, name: "report_finding", arguments: finding });

/** Every tool result the model was sent in a request, by call id. */
function toolResults(body: Record<string, any>): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of body.messages as { role: string; tool_call_id?: string; content: unknown }[]) {
    if (message.role === "tool") results.set(message.tool_call_id!, typeof message.content === "string" ? message.content : JSON.stringify(message.content));
  }
  return results;
}

function userText(body: Record<string, any>): string {
  const users = (body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "user");
  const last = users[users.length - 1]!.content;
  return typeof last === "string" ? last : (last as { text?: string }[]).map((p) => p.text ?? "").join("\n");
}

/** Starts a review and waits for its turn's end: the answer and the turn's completed items. */
async function review(target: TestServer, params: Record<string, unknown>): Promise<{ turnId: string; items: Item[] }> {
  const mark = target.main.notifications.length;
  const answer = await target.main.request("review/start", { threadId, ...params } as never);
  assert.equal(answer.threadId, threadId);
  assert.equal(answer.turn.status, "inProgress");
  const done = await target.main.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark });
  assert.equal(done.turn.id, answer.turn.id);
  assert.equal(done.turn.status, "completed");
  const items = target.main.notifications
    .slice(mark)
    .filter((n) => n.method === "item/completed")
    .map((n) => (n.params as { item: Item }).item);
  return { turnId: answer.turn.id, items };
}

const findings = (items: Item[]) => items.filter((item): item is ItemOf<"reviewFinding"> => item.type === "reviewFinding");

describe("beyond the spec: review turns", () => {
  let branchFindings: ItemOf<"reviewFinding">[] = [];
  let hunkId = "";

  test("a branch review: findings land on real hunk ids, a bad hunk id is refused to the model, the items read back", async () => {
    const diff = await server.main.request("thread/diff/read", { threadId, scope: "branch", against: "main" });
    hunkId = diff.files[0]!.hunks[0]!.id;
    const good = {
      path: "src/a.ts",
      hunkId,
      startLine: 8,
      endLine: 9,
      severity: "high",
      title: "Two lines for one",
      body: "Line 8 was split.",
      suggestion: "line 8\n",
    };
    const context = {
      path: "src/a.ts",
      hunkId,
      startLine: 11,
      endLine: 11,
      severity: "low",
      title: "Spell it out",
      body: "Say ten.",
      suggestion: "line ten\n",
    };
    const plain = { path: "src/a.ts", hunkId, startLine: 5, endLine: 5, severity: "info", title: "Fine", body: "Just a note." };
    const bad = { ...good, hunkId: "c3-000000000000000000000000" };
    model.enqueue(
      { toolCalls: [call("f_good", good), call("f_bad", bad)] },
      { toolCalls: [call("f_ctx", context), call("f_plain", plain)] },
      { text: "Reviewed." },
    );
    const requests = model.requests.length;
    const { turnId, items } = await review(server, { scope: "branch", against: "main", focus: "the renamed lines" });

    const first = model.requests[requests]!.body;
    assert.ok(
      (first.tools as { function: { name: string } }[]).some((t) => t.function.name === "report_finding"),
      "a review turn offers report_finding",
    );
    assert.match(userText(first), new RegExp(`hunk ${hunkId}`));
    assert.match(userText(first), /the renamed lines/);
    assert.match(userText(first), /\s8 \+line eight\n\s+9 \+line 8\.5/);
    assert.match(toolResults(model.requests[requests + 1]!.body).get("f_bad") ?? "", /not in the diff under review/);

    branchFindings = findings(items);
    assert.deepEqual(
      branchFindings.map((f) => f.lines),
      [["line eight", "line 8.5"], ["line 10"], ["line 5"]],
      "each carries the lines it is on, as the review read them",
    );
    assert.deepEqual(
      branchFindings.map((f) => [f.id, f.path, f.hunkId, f.side, f.startLine, f.endLine, f.severity, f.title, f.suggestion]),
      [
        ["f_good", "src/a.ts", hunkId, "new", 8, 9, "high", "Two lines for one", "line 8\n"],
        ["f_ctx", "src/a.ts", hunkId, "new", 11, 11, "low", "Spell it out", "line ten\n"],
        ["f_plain", "src/a.ts", hunkId, "new", 5, 5, "info", "Fine", undefined],
      ],
    );
    assert.ok(branchFindings.every((f) => /^finding-[0-9a-f]{16}$/.test(f.findingId)));
    const refused = items.find((item) => item.id === "f_bad");
    assert.equal(refused?.type, "toolCall");
    assert.equal(refused?.type === "toolCall" ? refused.status : undefined, "failed");

    const { turns, thread } = await server.main.request("thread/read", { threadId });
    const saved = turns.find((t) => t.id === turnId)!.items!.filter((item) => !("payloadRef" in item) && item.type === "reviewFinding");
    assert.deepEqual(saved, branchFindings);
    assert.equal(thread.name, "Review (branch): the renamed lines", "a thread whose first message is the review is named after it, not its instructions");
    // A turn that is no review offers no report_finding.
    model.enqueue({ text: "plain" });
    const before = model.requests.length;
    await runTurn(server, threadId, "hello");
    assert.ok(!(model.requests[before]!.body.tools as { function: { name: string } }[]).some((t) => t.function.name === "report_finding"));
    server.assertNoSchemaViolations();
  });

  test("a finding goes back as a turn/start comment as it is, with text", async () => {
    const { path, hunkId: id, side, startLine, endLine } = branchFindings[0]!;
    model.enqueue({ text: "ok" });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", {
      threadId,
      text: "Fix this one.",
      comments: [{ path, hunkId: id, side, startLine, endLine, text: "Please fix." }],
    });
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark });
    const user = server.main
      .notificationsOf("item/completed")
      .map((p) => p.item)
      .reverse()
      .find((item): item is ItemOf<"userMessage"> => item.type === "userMessage" && !("payloadRef" in item));
    assert.deepEqual(user?.comments, [{ path: "src/a.ts", side: "new", startLine: 8, endLine: 9, text: "Please fix.", quote: "+line eight\n+line 8.5" }]);
  });

  test("after a restart the findings read back; a suggestion applies exactly, one over changed lines is refused and touches nothing", async () => {
    server.transport.close();
    await server.waitForExit();
    server.assertNoSchemaViolations();
    replaced = server;
    server = await startServer({ model, home: server.home });
    await server.main.request("thread/resume", { threadId });
    const { turns } = await server.main.request("thread/read", { threadId });
    const saved = turns.flatMap((t) => t.items ?? []).filter((item) => !("payloadRef" in item) && item.type === "reviewFinding");
    assert.deepEqual(saved, branchFindings);

    const [good, context, plain] = branchFindings;
    const applied = await server.main.request("review/finding/apply", { threadId, findingId: good!.findingId });
    assert.deepEqual(applied, { paths: ["src/a.ts"] });
    assert.equal(repo.read("src/a.ts"), lines(20));

    const changed = lines(20).replace("line 10\n", "line 10 edited\n");
    repo.write("src/a.ts", changed);
    const refused = await failure(server, "review/finding/apply", { threadId, findingId: context!.findingId });
    assert.equal(refused.code, "gitConflict");
    assert.equal(refused.data?.reason, "diffChanged");
    assert.equal(repo.read("src/a.ts"), changed, "nothing was touched");
    repo.git("checkout", "-q", "--", "src/a.ts");

    const none = await failure(server, "review/finding/apply", { threadId, findingId: plain!.findingId });
    assert.equal(none.code, "invalidParams");
    assert.match(none.message, /no suggestion/);
    assert.equal((await failure(server, "review/finding/apply", { threadId, findingId: "finding-nope" })).code, "invalidParams");
    server.assertNoSchemaViolations();
  });

  test("uncommitted: a finding with a suggestion applies to the working tree", async () => {
    repo.write("src/b.ts", lines(6, "b").replace("b 3\n", "b three\n"));
    const hunk = (await server.main.request("thread/diff/read", { threadId })).files[0]!.hunks[0]!;
    const line = hunk.lines.filter((l) => !l.startsWith("-")).indexOf("+b three") + hunk.newStart;
    model.enqueue(
      {
        toolCalls: [
          call("u1", {
            path: "src/b.ts",
            hunkId: hunk.id,
            startLine: line,
            endLine: line,
            severity: "medium",
            title: "Digits",
            body: "Use digits.",
            suggestion: "b 3",
          }),
        ],
      },
      { text: "done" },
    );
    const [finding] = findings((await review(server, { scope: "uncommitted" })).items);
    assert.equal(finding?.hunkId, hunk.id);
    assert.deepEqual(await server.main.request("review/finding/apply", { threadId, findingId: finding!.findingId }), { paths: ["src/b.ts"] });
    assert.equal(repo.read("src/b.ts"), lines(6, "b"));
  });

  test("commit: findings on the commit's hunks, sent back as a comment after the working tree moved on", async () => {
    const hunk = (await server.main.request("thread/diff/read", { threadId, scope: "committed", commit: featureCommit })).files[0]!.hunks[0]!;
    model.enqueue(
      { toolCalls: [call("c1", { path: "src/a.ts", hunkId: hunk.id, startLine: 8, endLine: 8, severity: "critical", title: "Spelled", body: "Digits." })] },
      { text: "done" },
    );
    const [finding] = findings((await review(server, { scope: "commit", commit: "feature" })).items);
    assert.equal(finding?.hunkId, hunk.id);
    repo.git("checkout", "-q", "main");
    model.enqueue({ text: "ok" });
    const { path, side, startLine, endLine } = finding!;
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId, text: "See this.", comments: [{ path, hunkId: hunk.id, side, startLine, endLine, text: "why?" }] });
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark });
    repo.git("checkout", "-q", "feature");
  });

  test("lastTurn: the last turn's changes are reviewed", async () => {
    // The findings above ran under the default approval mode: report_finding asks nobody. The write needs no asking either.
    await server.main.request("thread/settings/update", { threadId, approvalMode: "fullAccess" });
    scriptTurn(model, { name: "write", arguments: { path: "src/new.ts", content: "const x = 1;\n" } });
    await runTurn(server, threadId, "write it");
    const hunk = (await server.main.request("thread/diff/read", { threadId, scope: "lastTurn" })).files[0]!.hunks[0]!;
    model.enqueue(
      { toolCalls: [call("l1", { path: "src/new.ts", hunkId: hunk.id, startLine: 1, endLine: 1, severity: "low", title: "Name", body: "Name it." })] },
      { text: "done" },
    );
    const [finding] = findings((await review(server, { scope: "lastTurn" })).items);
    assert.equal(finding?.hunkId, hunk.id);
    repo.remove("src/new.ts");
  });

  test("bad inputs: an unknown commit, a field of another scope, a focus too long, an empty diff, a running turn", async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ scope: "commit", commit: "no-such-commit" }, "invalidParams", /does not name a commit/],
      [{ scope: "commit" }, "invalidParams", /needs commit/],
      [{ scope: "uncommitted", against: "main" }, "invalidParams", /branch scope only/],
      [{ scope: "branch", turnId: "t" }, "invalidParams", /lastTurn scope only/],
      [{ scope: "uncommitted", focus: "x".repeat(4001) }, "invalidParams", /focus/],
      [{ scope: "uncommitted" }, "invalidParams", /nothing to review/],
      [{ scope: "uncommitted", delivery: "elsewhere" }, "invalidParams", /delivery/],
    ];
    for (const [params, code, words] of cases) {
      const error = await failure(server, "review/start", { threadId, ...params });
      assert.equal(error.code, code, JSON.stringify(params));
      assert.match(error.message, words, error.message);
    }
    let release!: () => void;
    model.enqueue({ text: ["wait", "ing"], pauseAfter: 1, gate: new Promise<void>((resolve) => (release = resolve)) });
    const requests = model.requests.length;
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId, text: "busy" });
    await model.waitForRequests(requests + 1);
    assert.equal((await failure(server, "review/start", { threadId, scope: "branch", against: "main" })).code, "turnInProgress");
    release();
    await server.main.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark });
    server.assertNoSchemaViolations();
  });
});
