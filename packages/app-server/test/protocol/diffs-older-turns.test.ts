import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ScriptedModelServer } from "@knightcode/testkit";
import { startServer, type TestServer } from "../support/harness.js";
import { failure, lines, makeRepo, runTurn, scriptTurn, type Repo, type ToolCall } from "./diffs-support.js";

/**
 * Beyond the spec: `thread/diff/read {scope: "lastTurn", turnId}` reads any
 * turn of the thread, kept from `git gc` by one chain of commits per thread
 * under `refs/knightcode/turns/<threadId>`. Real git, the real binary.
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

/** A turn of the model's `calls`; its id. */
async function turnOf(on: TestServer, threadId: string, text: string, ...calls: ToolCall[]): Promise<string> {
  scriptTurn(model, ...calls);
  return (await runTurn(on, threadId, text)).turnId;
}

/** Three turns, each changing its own file: a.txt's line 2, b.txt's line 4, a new c.txt. */
async function threeTurns(on: TestServer, repo: Repo): Promise<{ threadId: string; turns: string[] }> {
  const { thread } = await on.main.request("thread/start", { cwd: repo.root, approvalMode: "fullAccess" });
  const turns = [
    await turnOf(on, thread.id, "first", { name: "edit", arguments: { path: "a.txt", oldText: "line 2\n", newText: "line two\n" } }),
    await turnOf(on, thread.id, "second", { name: "edit", arguments: { path: "b.txt", oldText: "line 4\n", newText: "line four\n" } }),
    await turnOf(on, thread.id, "third", { name: "write", arguments: { path: "c.txt", content: "c1\nc2\n" } }),
  ];
  // A lastTurn read answers once the last turn's snapshot is kept.
  await on.main.request("thread/diff/read", { threadId: thread.id, scope: "lastTurn" });
  return { threadId: thread.id, turns };
}

const read = (on: TestServer, threadId: string, turnId?: string) =>
  on.main.request("thread/diff/read", { threadId, scope: "lastTurn", ...(turnId === undefined ? {} : { turnId }) });

describe("beyond the spec: thread/diff/read lastTurn with turnId", () => {
  test("reads any turn of the thread, stale once its files moved on; the last turn without turnId is unchanged", async () => {
    const repo = makeRepo(server, { "a.txt": lines(5), "b.txt": lines(5) });
    const { threadId, turns } = await threeTurns(server, repo);
    const [first, second, third] = turns as [string, string, string];

    const one = await read(server, threadId, first);
    assert.deepEqual(
      [one.scope, one.turnId, one.stale, one.files.map((f) => [f.path, f.status, f.additions, f.deletions])],
      ["lastTurn", first, false, [["a.txt", "modified", 1, 1]]],
    );
    assert.deepEqual(one.files[0]!.hunks[0]!.lines, [" line 1", "-line 2", "+line two", " line 3", " line 4", " line 5"]);
    assert.deepEqual(
      (await read(server, threadId, second)).files.map((f) => f.path),
      ["b.txt"],
    );
    const last = await read(server, threadId);
    assert.deepEqual([last.turnId, last.files.map((f) => f.path)], [third, ["c.txt"]]);
    assert.deepEqual(await read(server, threadId, third), last, "the last turn by its id reads as without it");

    repo.write("a.txt", lines(5).replace("line 2\n", "line 2 by the user\n"));
    assert.equal((await read(server, threadId, first)).stale, true, "the first turn's file is no longer as it left it");
    assert.equal((await read(server, threadId, second)).stale, false);

    // A turn that changed nothing reads as such.
    const quiet = await turnOf(server, threadId, "just talk");
    assert.deepEqual([(await read(server, threadId, quiet)).files, (await read(server, threadId, quiet)).turnId], [[], quiet]);

    const unknown = await failure(server, "thread/diff/read", { threadId, scope: "lastTurn", turnId: "no-such-turn" });
    assert.equal(unknown.code, "invalidParams");
    assert.match(unknown.message, /no-such-turn is not a turn of thread/);
    for (const scope of ["uncommitted", undefined] as const) {
      const refused = await failure(server, "thread/diff/read", { threadId, ...(scope ? { scope } : {}), turnId: first });
      assert.deepEqual([refused.code, refused.message], ["invalidParams", "turnId goes with the lastTurn scope only"]);
    }
    server.assertNoSchemaViolations();
  });

  test("every turn's snapshots outlive git gc while the thread lives, and go with it", async () => {
    const repo = makeRepo(server, { "a.txt": lines(5), "b.txt": lines(5) });
    const { threadId, turns } = await threeTurns(server, repo);
    const ref = `refs/knightcode/turns/${threadId}`;
    assert.equal(repo.git("rev-list", "--count", ref).trim(), "3", "one holder commit per turn, chained");
    const firstAfter = repo.git("rev-parse", `${ref}~2:after`).trim();

    repo.git("gc", "--quiet", "--prune=now");
    const one = await read(server, threadId, turns[0]);
    assert.deepEqual(
      one.files.map((f) => [f.path, f.hunks[0]!.lines.filter((l) => l[0] !== " ")]),
      [["a.txt", ["-line 2", "+line two"]]],
    );

    await server.main.request("thread/archive", { threadId });
    await server.main.request("thread/delete", { threadId });
    assert.equal(repo.git("for-each-ref", ref).trim(), "", "the turn ref outlived its thread");
    repo.git("gc", "--quiet", "--prune=now");
    assert.throws(() => repo.git("cat-file", "-e", firstAfter), "nothing else kept the turn's trees");
  });

  test("after a restart, from the transcript on disk; a turn whose trees git collected (kept before the chain) says so", async () => {
    const own = await startServer({ model });
    try {
      const repo = makeRepo(own, { "a.txt": lines(5), "b.txt": lines(5) });
      const { threadId, turns } = await threeTurns(own, repo);
      own.transport.close();
      await own.waitForExit();
      own.assertNoSchemaViolations();

      const second = await startServer({ model, home: own.home });
      try {
        await second.main.request("thread/resume", { threadId });
        assert.deepEqual(
          (await read(second, threadId, turns[1])).files.map((f) => f.path),
          ["b.txt"],
        );
        // As the ref was before every turn was kept: the last turn's holder alone, without a parent.
        const ref = `refs/knightcode/turns/${threadId}`;
        const lone = repo.git("commit-tree", repo.git("rev-parse", `${ref}^{tree}`).trim(), "-m", "last turn only").trim();
        repo.git("update-ref", ref, lone);
        repo.git("gc", "--quiet", "--prune=now");
        const gone = await failure(second, "thread/diff/read", { threadId, scope: "lastTurn", turnId: turns[0] });
        assert.equal(gone.code, "invalidParams");
        assert.match(gone.message, /^that turn's snapshot is no longer kept/);
        assert.deepEqual(
          (await read(second, threadId)).files.map((f) => f.path),
          ["c.txt"],
          "the last turn still reads",
        );
        second.assertNoSchemaViolations();
      } finally {
        await second.close();
      }
    } finally {
      own.cleanup();
    }
  });
});
