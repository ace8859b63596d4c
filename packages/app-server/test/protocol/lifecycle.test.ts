import assert from "node:assert/strict";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppServerError } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, waitUntil, type TestClient } from "../support/harness.js";

const TOKEN = "lifecycle-test-token-0123456789abcdef";
let model: ScriptedModelServer;
let server: TestServer;
let ws: TestClient;
let cwd: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model, args: ["--listen", "ws://127.0.0.1:0", "--listen-token", TOKEN], env: { KNIGHTCODE_THREAD_IDLE_MS: "300" } });
  const url = (await server.waitForStderr(/listening on (ws:\S+)/))[1]!;
  ws = await server.connectWebSocket(url, TOKEN);
  await ws.initialize();
  cwd = server.project({ "a.txt": "alpha\n" });
});
after(async () => {
  await server.close();
  await model.close();
});

async function threadWithTurn(client: TestClient = server.main, text = "hello") {
  const { thread } = await client.request("thread/start", { cwd });
  model.enqueue({ text: `re: ${text}` });
  const mark = client.notifications.length;
  await client.request("turn/start", { threadId: thread.id, text });
  await client.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
  return thread;
}

function rejectsWith(code: string, check?: (error: AppServerError) => void) {
  return (error: unknown) => {
    assert.ok(error instanceof AppServerError, String(error));
    assert.equal(error.code, code, error.message);
    check?.(error);
    return true;
  };
}

describe("spec: thread/archive and thread/unarchive", () => {
  test("archive unloads an idle thread, moves its transcript and tells every connection; unarchive brings it back whole", async () => {
    const thread = await threadWithTurn();
    const path = thread.sessionFile!;
    const before = readFileSync(path, "utf8");
    const wsMark = ws.notifications.length;
    const mark = server.main.notifications.length;
    assert.deepEqual(await server.main.request("thread/archive", { threadId: thread.id }), {});
    const archivedPath = join(dirname(path), "archived", basename(path));
    assert.equal(existsSync(path), false);
    assert.equal(readFileSync(archivedPath, "utf8"), before, "the transcript moved unchanged");
    assert.equal(existsSync(`${archivedPath}.lock`), false, "no lock is left behind");
    await ws.waitForNotification("thread/archived", (p) => p.threadId === thread.id, { since: wsMark });
    await server.main.waitForNotification("thread/status/changed", (p) => p.threadId === thread.id && p.status.type === "notLoaded", { since: mark });
    await assert.rejects(
      server.main.request("thread/resume", { threadId: thread.id }),
      rejectsWith("threadNotFound", (e) => assert.equal(e.data?.reason, "archived")),
    );
    assert.deepEqual(await server.main.request("thread/archive", { threadId: thread.id }), {}, "archiving twice changes nothing");
    assert.deepEqual(await ws.request("thread/unarchive", { threadId: thread.id }), {});
    await server.main.waitForNotification("thread/unarchived", (p) => p.threadId === thread.id, { since: mark });
    assert.equal(readFileSync(path, "utf8"), before);
    assert.equal(existsSync(archivedPath), false);
    const resumed = await server.main.request("thread/resume", { threadId: thread.id });
    assert.equal(resumed.turns.length, 1);
    assert.equal(resumed.thread.status.type, "idle");
  });

  test("a running thread refuses with turnInProgress and keeps running for its subscribers", async () => {
    const { thread } = await server.main.request("thread/start", { cwd });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    model.enqueue({ text: ["one", "two"], pauseAfter: 2, gate });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "slow" });
    await server.main.waitForNotification("item/agentMessage/delta", (p) => p.threadId === thread.id, { since: mark });
    await assert.rejects(server.main.request("thread/archive", { threadId: thread.id }), rejectsWith("turnInProgress"));
    release();
    const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
    assert.equal(done.turn.status, "completed");
    assert.ok(existsSync(thread.sessionFile!));
  });

  test("a file in the way or a hard-linked transcript is an archiveConflict naming the files; the thread stays loaded", async () => {
    const thread = await threadWithTurn();
    const path = thread.sessionFile!;
    const archivedPath = join(dirname(path), "archived", basename(path));
    mkdirSync(dirname(archivedPath), { recursive: true });
    writeFileSync(archivedPath, "someone else's file\n");
    await assert.rejects(
      server.main.request("thread/archive", { threadId: thread.id }),
      rejectsWith("archiveConflict", (e) => {
        assert.equal(e.data?.reason, "destinationExists");
        assert.deepEqual(e.data?.paths, [path, archivedPath]);
      }),
    );
    assert.equal(readFileSync(archivedPath, "utf8"), "someone else's file\n", "never overwritten");
    rmSync(archivedPath);
    const extra = join(server.home, `linked-${thread.id}.jsonl`);
    linkSync(path, extra);
    await assert.rejects(
      server.main.request("thread/archive", { threadId: thread.id }),
      rejectsWith("archiveConflict", (e) => {
        assert.equal(e.data?.reason, "hardLinked");
        assert.deepEqual(e.data?.paths, [path]);
      }),
    );
    model.enqueue({ text: "still here" });
    const mark = server.main.notifications.length;
    await server.main.request("turn/start", { threadId: thread.id, text: "again" });
    const done = await server.main.waitForNotification("turn/completed", (p) => p.threadId === thread.id, { since: mark });
    assert.equal(done.turn.status, "completed", "the refused thread is still loaded and subscribed");
    rmSync(extra);
  });

  test("unknown or malformed ids are threadNotFound", async () => {
    for (const threadId of ["0b6a4d2e-0000-4000-8000-000000000000", "../../etc/passwd", "x".repeat(128)]) {
      for (const method of ["thread/archive", "thread/unarchive", "thread/delete"] as const) {
        await assert.rejects(server.main.request(method, { threadId }), rejectsWith("threadNotFound"), `${method} ${threadId}`);
      }
    }
  });
});

describe("spec: thread/delete", () => {
  test("only an archived thread is deleted: the file goes and every connection hears thread/deleted", async () => {
    const thread = await threadWithTurn();
    const path = thread.sessionFile!;
    await assert.rejects(server.main.request("thread/delete", { threadId: thread.id }), rejectsWith("threadNotArchived"));
    assert.ok(existsSync(path), "a refused delete keeps the file");
    await server.main.request("thread/archive", { threadId: thread.id });
    const wsMark = ws.notifications.length;
    assert.deepEqual(await server.main.request("thread/delete", { threadId: thread.id }), {});
    await ws.waitForNotification("thread/deleted", (p) => p.threadId === thread.id, { since: wsMark });
    const archivedDir = join(dirname(path), "archived");
    assert.deepEqual(
      readdirSync(archivedDir).filter((name) => name.includes(thread.id)),
      [],
      "no transcript and no lock left",
    );
    await assert.rejects(server.main.request("thread/resume", { threadId: thread.id }), rejectsWith("threadNotFound"));
    await assert.rejects(server.main.request("thread/delete", { threadId: thread.id }), rejectsWith("threadNotFound"));
  });

  test("loads racing an archive or a delete wait for it: never a deadlock, never a half-moved thread", async () => {
    for (let round = 0; round < 6; round++) {
      const thread = await threadWithTurn();
      await server.main.request("thread/unsubscribe", { threadId: thread.id });
      const resume = () => server.main.request("thread/resume", { threadId: thread.id });
      const archive = () => server.main.request("thread/archive", { threadId: thread.id });
      // Resume first, archive first, and both at once with a delete behind them.
      const [first, second] = round % 2 === 0 ? [resume(), archive()] : [archive(), resume()].reverse();
      const results = await Promise.allSettled([first, second]);
      for (const result of results) {
        if (result.status === "rejected") assert.equal(result.reason.code, "threadNotFound", String(result.reason));
      }
      assert.ok(existsSync(join(dirname(thread.sessionFile!), "archived", basename(thread.sessionFile!))), "the archive happened");
      const [deleted, late] = await Promise.allSettled([
        server.main.request("thread/delete", { threadId: thread.id }),
        server.main.request("thread/resume", { threadId: thread.id }),
      ]);
      assert.equal(deleted.status, "fulfilled");
      assert.equal(late.status, "rejected");
      assert.equal((late as PromiseRejectedResult).reason.code, "threadNotFound");
      assert.equal(existsSync(thread.sessionFile!), false);
    }
  });
});

describe("spec: Ownership, unloading, and shutdown (unloading)", () => {
  test("an idle thread without subscribers unloads, releasing its lock and its extension lease; diagnostics count both", async () => {
    const extension = join(server.home, "counter-ext.ts");
    writeFileSync(extension, "export default function (kc: any) { kc.registerCommand('hello', { handler: async () => {} }); }\n");
    const local = await startServer({ model, args: ["-e", extension], env: { KNIGHTCODE_THREAD_IDLE_MS: "200" } });
    try {
      const { thread } = await local.main.request("thread/start", { cwd });
      let diagnostics = await local.main.request("server/diagnostics", {});
      assert.equal(diagnostics.loadedThreads, 1);
      assert.equal(diagnostics.inactiveFactories, 0, "the loaded thread leases its extension");
      assert.ok(existsSync(`${thread.sessionFile!}.lock`));
      const mark = local.main.notifications.length;
      await local.main.request("thread/unsubscribe", { threadId: thread.id });
      await local.main.waitForNotification("thread/status/changed", (p) => p.threadId === thread.id && p.status.type === "notLoaded", { since: mark });
      diagnostics = await local.main.request("server/diagnostics", {});
      assert.equal(diagnostics.loadedThreads, 0);
      assert.equal(diagnostics.inactiveFactories, 1, "the cached extension is inactive, kept for the next load");
      assert.equal(existsSync(`${thread.sessionFile!}.lock`), false, "the lock is released");
      await local.main.request("thread/resume", { threadId: thread.id });
      diagnostics = await local.main.request("server/diagnostics", {});
      assert.deepEqual([diagnostics.loadedThreads, diagnostics.inactiveFactories], [1, 0]);
      await local.close();
    } finally {
      local.cleanup();
    }
  });
});

describe("spec: Ownership across processes", () => {
  test("a second server on the same folder gets threadLockedElsewhere; after ownership is lost the thread fails visibly and can be reloaded", async () => {
    const thread = await threadWithTurn();
    const second = await startServer({ model, home: server.home });
    try {
      await assert.rejects(
        second.main.request("thread/resume", { threadId: thread.id }),
        rejectsWith("threadLockedElsewhere", (e) => assert.equal(e.data?.pid, server.pid)),
      );
      await assert.rejects(second.main.request("thread/archive", { threadId: thread.id }), rejectsWith("threadLockedElsewhere"));
      assert.ok(existsSync(thread.sessionFile!));

      // Someone breaks the lock and the second server takes the thread: the first notices and stops writing.
      const mark = server.main.notifications.length;
      const wsMark = ws.notifications.length;
      rmSync(`${thread.sessionFile!}.lock`);
      const taken = await second.main.request("thread/resume", { threadId: thread.id });
      assert.equal(taken.turns.length, 1);
      const error = await server.main.waitForNotification("error", (p) => p.kind === "threadFailed" && p.threadId === thread.id, { since: mark });
      assert.match(error.message, /ownership lost/);
      const failed = await ws.waitForNotification("thread/status/changed", (p) => p.threadId === thread.id && p.status.type === "systemError", {
        since: wsMark,
      });
      assert.match((failed.status as { message: string }).message, /ownership lost/);
      await waitUntil("no notLoaded after a failure", () => (ws.notifications.length > wsMark ? true : undefined));
      assert.equal(
        ws.notifications
          .slice(wsMark)
          .some((n) => n.method === "thread/status/changed" && (n.params as { status: { type: string } }).status.type === "notLoaded"),
        false,
        "the systemError stays visible",
      );
      await assert.rejects(server.main.request("turn/start", { threadId: thread.id, text: "write?" }), rejectsWith("threadNotFound"));
      const size = readFileSync(thread.sessionFile!, "utf8").length;

      // The second server releases it; the first reloads it successfully and the error clears.
      await second.close();
      const reloaded = await server.main.request("thread/resume", { threadId: thread.id });
      assert.equal(reloaded.thread.status.type, "idle");
      assert.equal(readFileSync(thread.sessionFile!, "utf8").length, size, "the failed owner wrote nothing after the loss");
    } finally {
      second.cleanup();
    }
  });
});
