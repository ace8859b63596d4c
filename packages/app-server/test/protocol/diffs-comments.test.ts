import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, waitUntil, type TestServer } from "../support/harness.js";
import { failure, lines, makeRepo, type Repo } from "./diffs-support.js";

/**
 * spec: Workspaces, diffs and git (review comments): comments travel with
 * turn/start and turn/queue/add, are quoted from the diff the user read,
 * show on the user item live and read back, reach the model beside the
 * typed text, and count as attachments in the queue.
 */

let model: ScriptedModelServer;
let server: TestServer;
let repo: Repo;
let threadId: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model });
  repo = makeRepo(server, { "src/a.ts": lines(20) });
  repo.write("src/a.ts", lines(20).replace("line 8\n", "line eight\nline 8.5\n"));
  threadId = (await server.main.request("thread/start", { cwd: repo.root })).thread.id;
});
after(async () => {
  await server.close();
  await model.close();
});

/** Every text the model was sent in the request's user messages, joined. */
function userTexts(body: Record<string, any>): string {
  return (body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : (m.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("\n")))
    .join("\n");
}

describe("spec: review comments", () => {
  test("turn/start: quoted from the hunk by side and lines, on the user item live and read back, and sent to the model after the text", async () => {
    const hunk = (await server.main.request("thread/diff/read", { threadId, context: 2 })).files[0]!.hunks[0]!;
    model.enqueue({ text: "noted" });
    const requests = model.requests.length;
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", {
      threadId,
      text: "Please look at my comments.",
      comments: [
        { path: "src/a.ts", hunkId: hunk.id, startLine: 8, endLine: 9, text: "Why two lines here?" },
        { path: "src/a.ts", hunkId: hunk.id, side: "old", startLine: 7, endLine: 8, text: "This was fine." },
      ],
    });
    const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === threadId, { since: mark });
    const expected = [
      { path: "src/a.ts", side: "new", startLine: 8, endLine: 9, text: "Why two lines here?", quote: "+line eight\n+line 8.5" },
      { path: "src/a.ts", side: "old", startLine: 7, endLine: 8, text: "This was fine.", quote: " line 7\n-line 8" },
    ];
    const live = server.main
      .notificationsOf("item/completed")
      .map((p) => p.item)
      .find((item) => item.type === "userMessage" && "text" in item && item.text === "Please look at my comments.");
    assert.deepEqual(live && "comments" in live ? live.comments : undefined, expected);
    const { turns } = await server.main.request("thread/read", { threadId });
    const saved = turns.find((t) => t.id === done.turn.id)!.items!.find((item) => item.type === "userMessage");
    assert.deepEqual(saved && "comments" in saved ? saved.comments : undefined, expected);
    const sent = userTexts((await model.waitForRequests(requests + 1))[requests]!.body);
    assert.match(sent, /Please look at my comments\./);
    assert.match(sent, /src\/a\.ts, new lines 8-9:\n```diff\n\+line eight\n\+line 8\.5\n```\nWhy two lines here\?/);
    assert.match(sent, /src\/a\.ts, old lines 7-8:\n```diff\n line 7\n-line 8\n```\nThis was fine\./);
    server.assertNoSchemaViolations();
  });

  test("turn/queue/add: the comments count as attachments in turn/queue/updated and reach the model when the input starts", async () => {
    const hunk = (await server.main.request("thread/diff/read", { threadId })).files[0]!.hunks[0]!;
    let release!: () => void;
    model.enqueue({ text: ["wait", "ing"], pauseAfter: 1, gate: new Promise<void>((resolve) => (release = resolve)) }, { text: "queued answer" });
    const requests = model.requests.length;
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId, text: "first" });
    await model.waitForRequests(requests + 1);
    await server.main.request("turn/queue/add", {
      threadId,
      text: "queued",
      comments: [{ path: "src/a.ts", hunkId: hunk.id, startLine: 9, endLine: 9, text: "and this" }],
    });
    const queued = await server.main.waitForNotification("turn/queue/updated", (p) => p.threadId === threadId && p.followUp.length === 1, { since: mark });
    assert.deepEqual(
      queued.followUp.map((q) => [q.text, q.attachments]),
      [["queued", 1]],
    );
    release();
    await model.waitForRequests(requests + 2);
    assert.match(userTexts(model.requests[requests + 1]!.body), /src\/a\.ts, new line 9:\n```diff\n\+line 8\.5\n```\nand this/);
    await waitUntil(
      "both turns to complete",
      () => server.main.notifications.slice(mark).filter((n) => n.method === "turn/completed").length === 2 || undefined,
    );
  });

  test("refused with invalidParams: a hunk id that matches nothing, the wrong file, lines outside the hunk, more than 50, text over 8 KiB", async () => {
    const hunk = (await server.main.request("thread/diff/read", { threadId })).files[0]!.hunks[0]!;
    const comment = { path: "src/a.ts", hunkId: hunk.id, startLine: 8, endLine: 8, text: "x" };
    const cases: [string, unknown[]][] = [
      ["read the diff again", [{ ...comment, hunkId: "c3-0123456789abcdef01234567" }]],
      ["read the diff again", [{ ...comment, hunkId: hunk.id.replace(/^c3/, "c9") }]],
      ["not the file", [{ ...comment, path: "src/b.ts" }]],
      ["not in hunk", [{ ...comment, startLine: 100, endLine: 101 }]],
      ["before its startLine", [{ ...comment, startLine: 9, endLine: 8 }]],
      ["comments", Array.from({ length: 51 }, () => comment)],
      ["8 KiB", [{ ...comment, text: "é".repeat(4100) }]],
    ];
    for (const method of ["turn/start", "turn/queue/add"]) {
      for (const [words, comments] of cases) {
        const error = await failure(server, method, { threadId, text: "review", comments });
        assert.equal(error.code, "invalidParams", `${method}: ${words}`);
        assert.match(error.message, new RegExp(words.replace(/ /g, ".*")), error.message);
      }
    }
    const outside = (await server.main.request("thread/start", { cwd: server.project({ "a.txt": "a\n" }) })).thread.id;
    assert.equal((await failure(server, "turn/start", { threadId: outside, text: "x", comments: [comment] })).code, "invalidParams");
  });
});
