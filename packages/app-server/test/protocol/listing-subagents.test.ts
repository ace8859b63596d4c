import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { serializeEntry, serializeHeader, type SessionHeader } from "@knightcode/store/session/format";
import { sessionFileName } from "@knightcode/store/session/paths";
import { AppServerError } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";

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

const code = (expected: string) => (error: unknown) => error instanceof AppServerError && error.code === expected;

/**
 * A sub-agent's transcript as its parent's server would leave it: a header
 * naming the parent and the call, and the task as its first message. Written
 * by hand, beside the parent's, until the tools that start children exist.
 */
function writeChild(folder: string, cwd: string, parentThreadId: string, callId: string, mtimeMs: number): string {
  const id = randomUUID();
  const createdAt = new Date(mtimeMs).toISOString();
  const header: SessionHeader = { type: "session", version: 1, id, cwd, createdAt, parentThreadId, parentCallId: callId };
  const task = serializeEntry({
    type: "message",
    id: `task${callId.padStart(8, "0")}`,
    parentId: null,
    timestamp: mtimeMs,
    message: { role: "user", content: `task of ${callId}`, timestamp: mtimeMs },
  } as never);
  const path = join(folder, sessionFileName(createdAt, id));
  writeFileSync(path, `${serializeHeader(header)}\n${task}\n`);
  utimesSync(path, new Date(mtimeMs), new Date(mtimeMs));
  return id;
}

describe("thread/list, thread/read, thread/resume, thread/fork: sub-agent threads", () => {
  test("parentThreadId lists a parent's children with both fields, paged with the filter kept; read and resume show them; a fork and others have neither", async () => {
    const cwd = server.project({ "a.txt": "a" }, "subagents");
    const { thread: parent } = await server.main.request("thread/start", { cwd });
    assert.equal("parentThreadId" in parent, false);
    assert.equal("parentCallId" in parent, false);
    const { thread: unrelated } = await server.main.request("thread/start", { cwd });
    const folder = dirname(parent.sessionFile!);
    const header = JSON.parse(readFileSync(parent.sessionFile!, "utf8").split("\n")[0]!) as SessionHeader;
    const base = Date.now() - 60_000;
    // Newest first: call_1's child is the newest.
    const children = [1, 2, 3].map((i) => ({ id: writeChild(folder, header.cwd, parent.id, `call_${i}`, base - i * 1000), callId: `call_${i}` }));
    writeChild(folder, header.cwd, children[0]!.id, "call_g", base + 5000);

    const page1 = await server.main.request("thread/list", { parentThreadId: parent.id, limit: 2 });
    assert.ok(page1.nextCursor !== undefined);
    await assert.rejects(server.main.request("thread/list", { limit: 2, cursor: page1.nextCursor }), code("invalidCursor"));
    const page2 = await server.main.request("thread/list", { parentThreadId: parent.id, limit: 2, cursor: page1.nextCursor });
    assert.equal(page2.nextCursor, undefined);
    const listed = [...page1.threads, ...page2.threads];
    assert.deepEqual(
      listed.map((t) => [t.id, t.parentThreadId, t.parentCallId]),
      children.map((child) => [child.id, parent.id, child.callId]),
    );
    assert.equal(listed[0]!.title, "task of call_1");
    assert.deepEqual(listed[0]!.status, { type: "notLoaded" });

    const everything = (await server.main.request("thread/list", { cwd })).threads;
    assert.equal(everything.length, 6, "without the filter every thread of the project is listed");
    for (const top of everything.filter((t) => t.id === parent.id || t.id === unrelated.id)) {
      assert.equal("parentThreadId" in top, false);
      assert.equal("parentCallId" in top, false);
    }
    assert.deepEqual((await server.main.request("thread/list", { parentThreadId: unrelated.id })).threads, []);

    const read = await server.main.request("thread/read", { threadId: children[1]!.id });
    assert.equal(read.thread.parentThreadId, parent.id);
    assert.equal(read.thread.parentCallId, "call_2");
    const readParent = await server.main.request("thread/read", { threadId: parent.id });
    assert.equal("parentThreadId" in readParent.thread, false);
    assert.equal("parentCallId" in readParent.thread, false);

    const resumed = await server.main.request("thread/resume", { threadId: children[0]!.id });
    assert.equal(resumed.thread.id, children[0]!.id);
    assert.equal(resumed.thread.parentThreadId, parent.id);
    assert.equal(resumed.thread.parentCallId, "call_1");
    const forked = await server.main.request("thread/fork", { threadId: children[0]!.id });
    assert.equal(forked.thread.forkedFromId, children[0]!.id);
    assert.equal("parentThreadId" in forked.thread, false, "a fork of a sub-agent is a top-level thread");
    assert.equal("parentCallId" in forked.thread, false);
    const resumedParent = await server.main.request("thread/resume", { threadId: parent.id });
    assert.equal("parentThreadId" in resumedParent.thread, false);
    assert.equal("parentCallId" in resumedParent.thread, false);
  });

  test("a parentThreadId that is empty, too long or not a string is invalidParams", async () => {
    for (const parentThreadId of ["", "x".repeat(257), 7]) {
      const answer = await server.main.rawRequest("thread/list", { parentThreadId });
      assert.equal((answer.error as { code: string }).code, "invalidParams", JSON.stringify(parentThreadId).slice(0, 20));
    }
  });
});
