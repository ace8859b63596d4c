import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { serializeEntry, serializeHeader } from "@knightcode/store/session/format";
import { sessionFileName } from "@knightcode/store/session/paths";
import { AppServerError } from "@knightcode/app-server-client";
import { ScriptedModelServer } from "@knightcode/testkit";
import { type TestServer, startServer, waitUntil, type TestClient } from "../support/harness.js";

let model: ScriptedModelServer;
let server: TestServer;
let projectA: string;
let projectB: string;

before(async () => {
  model = await ScriptedModelServer.start();
  server = await startServer({ model });
  projectA = server.project({ "a.txt": "a" }, "alpha");
  projectB = server.project({ "b.txt": "b" }, "beta");
});
after(async () => {
  await server.close();
  await model.close();
});

async function turn(client: TestClient, threadId: string, text: string) {
  model.enqueue({ text: `re: ${text}` });
  const mark = client.notifications.length;
  await client.request("turn/start", { threadId, text });
  const started = await client.waitForNotification("turn/started", (p) => p.threadId === threadId, { since: mark });
  await client.waitForNotification("turn/completed", (p) => p.turn.id === started.turn.id);
  return started.turn.id;
}

async function threadIn(cwd: string, ...texts: string[]) {
  const { thread } = await server.main.request("thread/start", { cwd });
  for (const text of texts) await turn(server.main, thread.id, text);
  return thread;
}

const code = (expected: string) => (error: unknown) => error instanceof AppServerError && error.code === expected;

async function walk(params: { cwd?: string; archived?: boolean; limit?: number }) {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await server.main.request("thread/list", { ...params, ...(cursor ? { cursor } : {}) });
    ids.push(...page.threads.map((t) => t.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

describe("spec: thread/list", () => {
  test("summaries newest first with a bounded title, times, workspace and status; filters by project; pages through a snapshot", async () => {
    const long = "Fix the flaky upload test " + "and more ".repeat(40);
    const first = await threadIn(projectA, `${long}\nsecond line`);
    const second = await threadIn(projectA, "Second thread");
    const other = await threadIn(projectB, "In the other project");
    await server.main.request("thread/name/set", { threadId: second.id, name: "Renamed by hand" });
    const { threads } = await server.main.request("thread/list", { cwd: projectA });
    assert.deepEqual(
      threads.map((t) => t.id),
      [second.id, first.id],
    );
    const [renamed, plain] = threads;
    assert.equal(renamed!.title, "Renamed by hand");
    assert.equal(renamed!.name, "Renamed by hand");
    assert.ok([...plain!.title].length <= 120 && plain!.title.startsWith("Fix the flaky upload test") && plain!.title.endsWith("…"));
    assert.equal(plain!.name, undefined);
    assert.equal(plain!.cwd, projectA);
    assert.equal(plain!.workspace.mode, "local");
    assert.equal(plain!.archived, false);
    assert.deepEqual(plain!.status, { type: "idle" }, "loaded threads show their live status");
    assert.equal(plain!.updatedAt, new Date(Math.floor(statSync(first.sessionFile!).mtimeMs)).toISOString());
    assert.equal(plain!.createdAt, first.createdAt);
    const everything = await walk({ limit: 1 });
    for (const id of [first.id, second.id, other.id]) assert.ok(everything.includes(id));
    assert.equal(new Set(everything).size, everything.length, "a walk never repeats a thread");
  });

  test("a cursor pages a snapshot: new threads do not shift it; bad, foreign-filter and malformed cursors are invalidCursor", async () => {
    const cwd = server.project({}, `snap-${Date.now()}`);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await threadIn(cwd, `thread ${i}`));
    const page1 = await server.main.request("thread/list", { cwd, limit: 2 });
    assert.deepEqual(
      page1.threads.map((t) => t.id),
      [made[4]!.id, made[3]!.id],
    );
    await threadIn(cwd, "a newer one");
    const page2 = await server.main.request("thread/list", { cwd, limit: 2, cursor: page1.nextCursor! });
    assert.deepEqual(
      page2.threads.map((t) => t.id),
      [made[2]!.id, made[1]!.id],
      "the snapshot does not move",
    );
    await assert.rejects(server.main.request("thread/list", { cwd, archived: true, cursor: page1.nextCursor! }), code("invalidCursor"));
    await assert.rejects(server.main.request("thread/list", { cursor: "garbage" }), code("invalidCursor"));
    for (const limit of [0, 201, 1.5]) {
      const answer = await server.main.rawRequest("thread/list", { limit });
      assert.equal((answer.error as { code: string }).code, "invalidParams", `limit ${limit}`);
    }
  });

  test("a title search finds threads ignoring case, pages with its own cursor, and refuses an empty or huge search", async () => {
    const cwd = server.project({}, `search-${Date.now()}`);
    const wanted = [await threadIn(cwd, "Deploy the staging box"), await threadIn(cwd, "unrelated work"), await threadIn(cwd, "redeploy after the fix")];
    await server.main.request("thread/name/set", { threadId: wanted[1]!.id, name: "Deploy notes" });
    const page = await server.main.request("thread/list", { cwd, search: "DEPLOY", limit: 2 });
    const rest = await server.main.request("thread/list", { cwd, search: "DEPLOY", limit: 2, cursor: page.nextCursor! });
    // The rename made the middle one the newest: order is by time, so compare the set.
    assert.deepEqual([...page.threads, ...rest.threads].map((t) => t.id).sort(), wanted.map((t) => t.id).sort());
    assert.equal(page.threads.length, 2);
    assert.equal(rest.nextCursor, undefined);
    await assert.rejects(server.main.request("thread/list", { cwd, limit: 2, cursor: page.nextCursor! }), code("invalidCursor"));
    for (const search of ["", "x".repeat(201), 7]) {
      const answer = await server.main.rawRequest("thread/list", { search });
      assert.equal((answer.error as { code: string }).code, "invalidParams", `search ${JSON.stringify(search).slice(0, 20)}`);
    }
  });

  test("archived threads list apart; the index survives corruption and notices a transcript edited under it", async () => {
    const cwd = server.project({}, `arch-${Date.now()}`);
    const kept = await threadIn(cwd, "kept");
    const gone = await threadIn(cwd, "archived one");
    await server.main.request("thread/archive", { threadId: gone.id });
    assert.deepEqual(await walk({ cwd }), [kept.id]);
    const archived = await server.main.request("thread/list", { cwd, archived: true });
    assert.deepEqual(
      archived.threads.map((t) => t.id),
      [gone.id],
    );
    assert.equal(archived.threads[0]!.archived, true);
    assert.deepEqual(archived.threads[0]!.status, { type: "notLoaded" });

    const folder = dirname(kept.sessionFile!);
    const index = join(folder, ".thread-index.json");
    const shard = join(folder, ".thread-index-1-0.tsv");
    // The listing answers first and writes its index after: wait for an index that knows the kept transcript.
    await waitUntil(
      "the listing to write its index",
      () => existsSync(index) && existsSync(shard) && readFileSync(shard, "utf8").includes(basename(kept.sessionFile!)),
    );
    writeFileSync(index, "{ not json");
    assert.deepEqual(await walk({ cwd }), [kept.id], "a corrupt index is rebuilt");

    // Edit the transcript under the warm index: a name entry appended by another tool.
    await server.main.request("thread/unsubscribe", { threadId: kept.id });
    const lines = readFileSync(kept.sessionFile!, "utf8").trim().split("\n");
    const last = JSON.parse(lines.at(-1)!) as { id: string };
    appendFileSync(
      kept.sessionFile!,
      JSON.stringify({ type: "thread_name", id: "edited00001", parentId: last.id, timestamp: Date.now(), name: "Edited outside" }) + "\n",
    );
    const after = await server.main.request("thread/list", { cwd });
    assert.equal(after.threads[0]!.title, "Edited outside");
  });

  test("the server indexes what it writes: a restarted server lists its threads without reading one", async () => {
    const home = mkdtempSync(join(tmpdir(), "kc-test-restart-"));
    let second: TestServer | undefined;
    try {
      const first = await startServer({ model, home });
      const cwd = first.project({}, "restart");
      const ids: string[] = [];
      for (const text of ["one", "two", "three"]) {
        const { thread } = await first.main.request("thread/start", { cwd });
        await turn(first.main, thread.id, text);
        ids.unshift(thread.id);
      }
      const { thread: empty } = await first.main.request("thread/start", { cwd });
      ids.unshift(empty.id);
      // Listings order by modification time at whole milliseconds: the rename must land in a later one. File
      // times come from the kernel's coarse clock, which can lag Date.now() by a tick: wait on the files' own clock.
      const written = Math.floor(statSync(empty.sessionFile!).mtimeMs);
      const probe = join(cwd, ".clock-probe");
      await waitUntil("the file clock to pass the empty thread's last write", () => {
        writeFileSync(probe, "");
        return Math.floor(statSync(probe).mtimeMs) > written || undefined;
      });
      await first.main.request("thread/name/set", { threadId: ids[1]!, name: "Named last" });
      ids.splice(0, 2, ids[1]!, ids[0]!);
      await first.close();

      second = await startServer({ model, home });
      const { threads } = await second.main.request("thread/list", { cwd });
      assert.deepEqual(
        threads.map((t) => t.id),
        ids,
      );
      assert.deepEqual(
        threads.map((t) => t.title),
        ["Named last", "", "two", "one"],
      );
      const diagnostics = await second.main.request("server/diagnostics", {});
      assert.equal(diagnostics.listingFilesOpened, 0, "every transcript was in the index");
      await second.close();
    } finally {
      second?.cleanup();
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a folder of 4,500 threads: the index is sharded, and a restarted server lists and searches it reading none", async () => {
    const home = mkdtempSync(join(tmpdir(), "kc-test-shards-"));
    const servers: TestServer[] = [];
    const start = async () => {
      const started = await startServer({ model, home });
      servers.push(started);
      return started;
    };
    try {
      const first = await start();
      const cwd = first.project({}, "many");
      const { thread } = await first.main.request("thread/start", { cwd });
      await turn(first.main, thread.id, "the only real one");
      const folder = dirname(thread.sessionFile!);
      await first.close();
      const header = JSON.parse(readFileSync(thread.sessionFile!, "utf8").split("\n")[0]!) as { cwd: string };
      const base = Date.parse("2025-02-01T00:00:00.000Z");
      for (let i = 0; i < 4500; i++) {
        const id = randomUUID();
        const createdAt = new Date(base + i * 1000).toISOString();
        const lines = [
          serializeHeader({ type: "session", version: 1, id, cwd: header.cwd, createdAt }),
          serializeEntry({
            type: "message",
            id: `m${String(i).padStart(10, "0")}`,
            parentId: null,
            timestamp: base,
            message: { role: "user", content: `synthetic thread ${i}`, timestamp: base },
          } as never),
        ];
        const path = join(folder, sessionFileName(createdAt, id));
        writeFileSync(path, lines.join("\n") + "\n");
        utimesSync(path, new Date(base + i * 1000), new Date(base + i * 1000));
      }
      const cold = await start();
      const listed = await cold.main.request("thread/list", { cwd, limit: 200 });
      assert.equal(listed.threads[0]!.id, thread.id, "the real thread is the newest");
      assert.equal(listed.threads[1]!.title, "synthetic thread 4499");
      assert.equal((await cold.main.request("server/diagnostics", {})).listingFilesOpened, 4500, "the first server indexed its own thread");
      await cold.close();
      const top = JSON.parse(readFileSync(join(folder, ".thread-index.json"), "utf8")) as { version: number; shards: number };
      assert.deepEqual(top, { version: 4, shards: 2 });
      assert.ok(readdirSync(folder).filter((name) => name.startsWith(".thread-index-2-")).length === 2);

      const warm = await start();
      assert.deepEqual((await warm.main.request("thread/list", { cwd, limit: 200 })).threads, listed.threads);
      const found = await warm.main.request("thread/list", { cwd, search: "THREAD 4321" });
      assert.deepEqual(
        found.threads.map((t) => t.title),
        ["synthetic thread 4321"],
      );
      let count = 0;
      for (let cursor: string | undefined, begin = true; begin || cursor; begin = false) {
        const page = await warm.main.request("thread/list", { limit: 200, ...(cursor ? { cursor } : {}) });
        count += page.threads.length;
        cursor = page.nextCursor;
      }
      assert.equal(count, 4501);
      assert.equal((await warm.main.request("server/diagnostics", {})).listingFilesOpened, 0, "every transcript was in the shards");
      await warm.close();
    } finally {
      for (const started of servers) started.cleanup();
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a dangling link or a stray file in the sessions folder hides no project's threads", async () => {
    const project = server.project({ "c.txt": "c" }, "gamma");
    const thread = await threadIn(project, "still listed");
    const sessions = join(server.agentDir, "sessions");
    // Many, so that some come before the project's folder in the order the folder is read.
    for (let i = 0; i < 24; i++) symlinkSync(join(server.home, `gone-${i}`), join(sessions, `dangling-${i}`));
    writeFileSync(join(sessions, "notes.txt"), "not a project");
    try {
      assert.ok((await walk({})).includes(thread.id));
      assert.deepEqual(await walk({ cwd: project }), [thread.id]);
    } finally {
      for (let i = 0; i < 24; i++) rmSync(join(sessions, `dangling-${i}`));
      rmSync(join(sessions, "notes.txt"));
    }
  });

  test("a warm listing opens no transcript: the diagnostics counters show it", async () => {
    await server.main.request("thread/list", {});
    const before = await server.main.request("server/diagnostics", {});
    await server.main.request("thread/list", {});
    const afterWarm = await server.main.request("server/diagnostics", {});
    assert.equal(afterWarm.listingFilesOpened, before.listingFilesOpened);
    assert.equal(afterWarm.listingBytesScanned, before.listingBytesScanned);
    assert.ok(before.listingFilesOpened > 0 && before.listingBytesScanned > 0, "the cold listing was counted");
  });
});

describe("spec: thread/read", () => {
  test("reads history without loading, locking or writing; the same pages as resume", async () => {
    const thread = await threadIn(projectA, "one", "two", "three");
    await server.main.request("thread/unsubscribe", { threadId: thread.id });
    const path = thread.sessionFile!;
    const bytes = readFileSync(path);
    const locks = () =>
      readdirSync(dirname(path))
        .filter((name) => name.endsWith(".lock"))
        .sort();
    const locksBefore = locks();
    const read = await server.main.request("thread/read", { threadId: thread.id });
    assert.equal(read.thread.id, thread.id);
    assert.equal(read.thread.title, "one");
    assert.equal(read.turns.length, 3);
    assert.ok(read.turns.every((t) => t.status === "completed" && (t.items ?? []).length >= 2));
    assert.equal(read.nextCursor, undefined);
    assert.deepEqual(readFileSync(path), bytes, "nothing written");
    assert.deepEqual(locks(), locksBefore, "no lock taken");
  });

  test("pages of 50 turns, newest first; appends cannot shift a cursor; foreign and malformed cursors are invalidCursor", async () => {
    const { thread } = await server.main.request("thread/start", { cwd: projectB });
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push(await turn(server.main, thread.id, `t${i}`));
    const newest = await server.main.request("thread/read", { threadId: thread.id });
    assert.deepEqual(
      newest.turns.map((t) => t.id),
      ids.slice(5),
    );
    assert.ok(newest.nextCursor);
    await turn(server.main, thread.id, "after the cursor");
    const older = await server.main.request("thread/read", { threadId: thread.id, cursor: newest.nextCursor });
    assert.deepEqual(
      older.turns.map((t) => t.id),
      ids.slice(0, 5),
      "the appended turn did not shift the page",
    );
    assert.equal(older.nextCursor, undefined);
    const resumed = await server.main.request("thread/resume", { threadId: thread.id, cursor: newest.nextCursor });
    assert.deepEqual(
      resumed.turns.map((t) => t.id),
      ids.slice(0, 5),
      "resume pages the same way",
    );

    const other = await threadIn(projectB, "other");
    await assert.rejects(server.main.request("thread/read", { threadId: other.id, cursor: newest.nextCursor }), code("invalidCursor"));
    const forged = Buffer.from(JSON.stringify({ t: thread.id, i: "nosuchentry", b: 40 })).toString("base64url");
    await assert.rejects(server.main.request("thread/read", { threadId: thread.id, cursor: forged }), code("invalidCursor"));
    await assert.rejects(server.main.request("thread/read", { threadId: thread.id, cursor: "%%%" }), code("invalidCursor"));
    await assert.rejects(server.main.request("thread/read", { threadId: "no-such-thread" }), code("threadNotFound"));
  });

  test("a second server process lists and reads threads the first one owns", async () => {
    const thread = await threadIn(projectA, "owned by the first");
    const second = await startServer({ model, home: server.home });
    try {
      const read = await second.main.request("thread/read", { threadId: thread.id });
      assert.equal(read.turns.length, 1);
      assert.deepEqual(read.thread.status, { type: "notLoaded" }, "the second process has not loaded it");
      const listed = await second.main.request("thread/list", { cwd: projectA });
      assert.ok(listed.threads.some((t) => t.id === thread.id));
      await assert.rejects(second.main.request("thread/resume", { threadId: thread.id }), code("threadLockedElsewhere"));
      await second.close();
    } finally {
      second.cleanup();
    }
  });
});
