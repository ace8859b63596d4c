import assert from "node:assert/strict";
import { statSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ClientRequestResult } from "@knightcode/app-server-protocol";
import { startServer, type TestServer } from "../support/harness.js";
import { failure, lines, makeRepo, type Repo } from "./diffs-support.js";

/**
 * spec: Workspaces, diffs and git (thread/diff/read, thread/diff/revert,
 * git/stage, git/unstage), against real repositories through the built
 * server.
 */

type DiffAnswer = ClientRequestResult<"thread/diff/read">;

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.close();
});

async function threadIn(cwd: string): Promise<string> {
  return (await server.main.request("thread/start", { cwd })).thread.id;
}

async function read(threadId: string, params: Omit<Parameters<typeof server.main.request<"thread/diff/read">>[1], "threadId"> = {}): Promise<DiffAnswer> {
  return server.main.request("thread/diff/read", { threadId, ...params });
}

/** The error a request answers: its code, message and data. */
const file = (answer: DiffAnswer, path: string) => {
  const found = answer.files.find((f) => f.path === path);
  assert.ok(found, `${path} in ${answer.files.map((f) => f.path).join(", ")}`);
  return found;
};

describe("spec: thread/diff/read", () => {
  test("renames, binary files, mode changes, CRLF, deletions, untracked files and symlinks, with paths from the root of a thread in a subfolder", async () => {
    const repo = makeRepo(server, {
      "src/a.ts": lines(12),
      "src/old.ts": lines(20, "moved"),
      "img.bin": "\0\x01\x02",
      "run.sh": "echo\n",
      "crlf.txt": "a\r\nb\r\n",
      "gone.txt": "bye\n",
      "target.txt": "t\n",
    });
    symlinkSync("target.txt", join(repo.root, "link"));
    repo.write("src/a.ts", lines(12).replace("line 6\n", "line six\n"));
    repo.git("mv", "src/old.ts", "src/new.ts");
    repo.write("img.bin", "\0\x01\x03");
    repo.write("run.sh", "echo\n", 0o755);
    repo.write("crlf.txt", "a\r\nB\r\n");
    repo.remove("gone.txt");
    repo.write("src/fresh.ts", "export {};\n");
    const threadId = await threadIn(join(repo.root, "src"));
    const answer = await read(threadId);
    assert.equal(answer.scope, "uncommitted");
    assert.equal(answer.root, repo.root);
    assert.deepEqual(
      file(answer, "src/a.ts").hunks[0]!.lines.filter((l) => l[0] !== " "),
      ["-line 6", "+line six"],
    );
    assert.deepEqual([file(answer, "src/new.ts").status, file(answer, "src/new.ts").oldPath], ["renamed", "src/old.ts"]);
    assert.deepEqual([file(answer, "img.bin").binary, file(answer, "img.bin").hunks], [true, []]);
    const mode = file(answer, "run.sh");
    assert.deepEqual([mode.status, mode.additions, mode.deletions, mode.hunks], ["modified", 0, 0, []]);
    assert.deepEqual(file(answer, "crlf.txt").hunks[0]!.lines, [" a\r", "-b\r", "+B\r"]);
    assert.equal(file(answer, "gone.txt").status, "deleted");
    assert.deepEqual([file(answer, "src/fresh.ts").status, file(answer, "src/fresh.ts").hunks[0]!.lines], ["added", ["+export {};"]]);
    assert.deepEqual([file(answer, "link").status, file(answer, "link").hunks[0]!.lines[0]], ["added", "+target.txt"]);
    server.assertNoSchemaViolations();
  });

  test("reads never write the index: its bytes and mtime stay, even when it is stale", async () => {
    const repo = makeRepo(server, { "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    repo.write("a.txt", "A\n");
    repo.git("add", "a.txt");
    repo.write("b.txt", "B\n");
    repo.write("u.txt", "untracked\n");
    // A stat change without a content change: git diff would refresh this entry and write the index.
    const later = new Date(Date.now() + 10_000);
    utimesSync(join(repo.root, "c.txt"), later, later);
    const index = join(repo.root, ".git", "index");
    const bytes = repo.read(".git/index");
    const mtime = statSync(index).mtimeMs;
    const threadId = await threadIn(repo.root);
    for (const scope of ["uncommitted", "unstaged", "staged", "branch", "committed", "lastTurn"] as const) {
      await read(threadId, { scope, ...(scope === "committed" ? { commit: "HEAD" } : {}), ...(scope === "branch" ? { against: "main" } : {}) });
    }
    await read(threadId, { ignoreWhitespace: true, context: 0 });
    assert.equal(repo.read(".git/index"), bytes);
    assert.equal(statSync(index).mtimeMs, mtime);
    // And git itself does write it, so the check above can fail.
    repo.git("diff", "--quiet", "--", "c.txt");
    assert.notEqual(statSync(index).mtimeMs, mtime);
  });

  test("budgets: more than 500 untracked files are counted and left out; a huge file keeps its counts without hunks", async () => {
    const repo = makeRepo(server, { "big.txt": lines(30_000), "small.txt": "s\n" });
    repo.write("big.txt", lines(30_000, "changed"));
    repo.write("small.txt", "S\n");
    for (let i = 0; i < 501; i++) repo.write(`flood/f${i}.txt`, `${i}\n`);
    const threadId = await threadIn(repo.root);
    const answer = await read(threadId);
    assert.equal(answer.untrackedSkipped, 501);
    assert.deepEqual(
      answer.files.map((f) => f.path),
      ["big.txt", "small.txt"],
    );
    const big = file(answer, "big.txt");
    assert.deepEqual([big.tooLarge, big.additions, big.deletions, big.hunks.length], [true, 30_000, 30_000, 0]);
    assert.equal(file(answer, "small.txt").hunks.length, 1);
    repo.remove("flood/f0.txt");
    const fewer = await read(threadId);
    assert.equal(fewer.untrackedSkipped, undefined);
    assert.equal(fewer.files.filter((f) => f.path.startsWith("flood/")).length, 500);
  });

  test("an answer of hundreds of files, written out in parts, arrives whole and in order with the answers around it", async () => {
    const count = 300;
    const names = Array.from({ length: count }, (_, i) => `dir${i % 7}/file-${String(i).padStart(3, "0")} é.ts`);
    const repo = makeRepo(server, Object.fromEntries(names.map((name) => [name, lines(40, name)])));
    for (const name of names) repo.write(name, lines(40, name).replace(`${name} 5\n`, `${name} five\n`).replace(`${name} 30\n`, `${name} thirty "𝄞"\n`));
    const threadId = await threadIn(repo.root);
    const [before, answer, after] = await Promise.all([read(threadId, { context: 0 }), read(threadId), read(threadId, { context: 0 })]);
    assert.ok(JSON.stringify(answer).length > 2 * 64 * 1024, `${JSON.stringify(answer).length} characters: large enough to go out in several parts`);
    assert.deepEqual(
      answer.files.map((f) => f.path),
      [...names].sort(),
    );
    for (const name of names) {
      const hunks = file(answer, name).hunks;
      assert.deepEqual(
        hunks.map((hunk) => hunk.lines.filter((l) => l[0] !== " ")),
        [
          [`-${name} 5`, `+${name} five`],
          [`-${name} 30`, `+${name} thirty "𝄞"`],
        ],
      );
    }
    assert.deepEqual(before, after);
    assert.equal(before.files.length, count);
    // An id from the large answer is one an action takes.
    await server.main.request("thread/diff/revert", { threadId, path: names[0]!, hunkId: file(answer, names[0]!).hunks[1]!.id });
    assert.equal(repo.read(names[0]!), lines(40, names[0]!).replace(`${names[0]} 5\n`, `${names[0]} five\n`));
    server.assertNoSchemaViolations();
  });

  test("a submodule and a nested repository do not break a read", async () => {
    const inner = makeRepo(server, { "inner.txt": "i\n" });
    const repo = makeRepo(server, { "a.txt": "a\n" });
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", inner.root, "sub");
    repo.git("commit", "-qm", "sub");
    repo.write("sub/inner.txt", "dirty\n");
    repo.git("init", "-q", "nested");
    repo.write("nested/n.txt", "n\n");
    repo.write("a.txt", "A\n");
    const threadId = await threadIn(repo.root);
    const answer = await read(threadId);
    assert.ok(answer.files.some((f) => f.path === "a.txt"));
    assert.ok(!answer.files.some((f) => f.path.startsWith("nested")));
    await read(threadId, { scope: "unstaged" });
  });

  test("committed and branch scopes, and what they refuse", async () => {
    const repo = makeRepo(server, { "a.txt": "one\n" });
    repo.git("checkout", "-q", "-b", "feature");
    repo.write("a.txt", "two\n");
    repo.git("commit", "-qam", "two");
    repo.write("b.txt", "untracked\n");
    const threadId = await threadIn(repo.root);
    const committed = await read(threadId, { scope: "committed", commit: "HEAD" });
    assert.deepEqual(committed.files[0]!.hunks[0]!.lines, ["-one", "+two"]);
    const branch = await read(threadId, { scope: "branch" });
    assert.equal(branch.against, "main");
    assert.deepEqual(
      branch.files.map((f) => f.path),
      ["a.txt", "b.txt"],
    );
    assert.equal((await failure(server, "thread/diff/read", { threadId, scope: "committed" })).code, "invalidParams");
    assert.equal((await failure(server, "thread/diff/read", { threadId, scope: "committed", commit: "nope" })).code, "invalidParams");
    assert.equal((await failure(server, "thread/diff/read", { threadId, scope: "branch", against: "nope" })).code, "invalidParams");
    const lonely = makeRepo(server, { "a.txt": "a\n" }, { branch: "trunk" });
    const lonelyThread = await threadIn(lonely.root);
    const none = await failure(server, "thread/diff/read", { threadId: lonelyThread, scope: "branch" });
    assert.equal(none.code, "invalidParams");
    assert.match(none.message, /no branch to compare with/);
  });

  test("threadNotFound and notGitRepo", async () => {
    for (const method of ["thread/diff/read", "thread/diff/revert", "git/stage", "git/unstage"]) {
      assert.equal((await failure(server, method, { threadId: "no-such-thread" })).code, "threadNotFound");
    }
    const outside = server.project({ "a.txt": "a\n" });
    const threadId = await threadIn(outside);
    for (const method of ["thread/diff/read", "thread/diff/revert", "git/stage", "git/unstage"]) {
      assert.equal((await failure(server, method, { threadId })).code, "notGitRepo", method);
    }
  });
});

describe("spec: thread/diff/revert", () => {
  let repo: Repo;
  let threadId: string;
  before(async () => {
    repo = makeRepo(server, { "a.txt": lines(30), "b.txt": "b\n", "old.txt": lines(10, "keep"), "bin.dat": "\0x" });
    threadId = await threadIn(repo.root);
  });

  test("one hunk, one file, an added file (deleted), a rename (back to its old name), a binary file, then the whole scope", async () => {
    repo.write("a.txt", lines(30).replace("line 2\n", "line two\n").replace("line 27\n", "line 27b\n"));
    repo.write("b.txt", "B\n");
    repo.write("added.txt", "new\n");
    repo.git("mv", "old.txt", "renamed.txt");
    repo.write("bin.dat", "\0y");
    const a = file(await read(threadId), "a.txt");
    assert.deepEqual(await server.main.request("thread/diff/revert", { threadId, path: "a.txt", hunkId: a.hunks[0]!.id }), { paths: ["a.txt"] });
    assert.equal(repo.read("a.txt"), lines(30).replace("line 27\n", "line 27b\n"));
    assert.deepEqual(await server.main.request("thread/diff/revert", { threadId, path: "b.txt" }), { paths: ["b.txt"] });
    assert.equal(repo.read("b.txt"), "b\n");
    const added = file(await read(threadId), "added.txt");
    assert.deepEqual(await server.main.request("thread/diff/revert", { threadId, hunkId: added.hunks[0]!.id }), { paths: ["added.txt"] });
    assert.throws(() => repo.read("added.txt"), /ENOENT/);
    assert.deepEqual(await server.main.request("thread/diff/revert", { threadId, path: "renamed.txt" }), { paths: ["old.txt", "renamed.txt"] });
    assert.equal(repo.read("old.txt"), lines(10, "keep"));
    repo.write("c.txt", "c\n");
    const everything = await server.main.request("thread/diff/revert", { threadId });
    assert.deepEqual(everything.paths.sort(), ["a.txt", "bin.dat", "c.txt"]);
    assert.equal(repo.read("bin.dat"), "\0x");
    assert.deepEqual((await read(threadId)).files, []);
    server.assertNoSchemaViolations();
  });

  test("refusals: invalidParams for staged, committed, a path outside the diff, reapply or turnId off lastTurn, reapply with a hunk; diffChanged for a hunk that changed", async () => {
    repo.write("b.txt", "changed\n");
    const hunk = file(await read(threadId), "b.txt").hunks[0]!;
    const refused = [
      { scope: "staged" },
      { scope: "committed", commit: "HEAD" },
      { path: "a.txt" },
      { path: "../elsewhere.txt" },
      { reapply: true },
      { turnId: "some-turn" },
      { scope: "lastTurn", reapply: true, hunkId: hunk.id },
    ];
    for (const params of refused)
      assert.equal((await failure(server, "thread/diff/revert", { threadId, ...params })).code, "invalidParams", JSON.stringify(params));
    const ids = [hunk.id.replace(/^c3/, "w3"), "c3-0123456789abcdef01234567", "not-an-id"];
    for (const hunkId of ids) {
      const error = await failure(server, "thread/diff/revert", { threadId, hunkId });
      assert.deepEqual([error.code, error.data?.reason], ["gitConflict", "diffChanged"], hunkId);
    }
    const otherContext = await failure(server, "thread/diff/revert", { threadId, hunkId: hunk.id, context: 4 });
    assert.equal(otherContext.data?.reason, "diffChanged");
    repo.write("b.txt", "changed again\n");
    const stale = await failure(server, "thread/diff/revert", { threadId, hunkId: hunk.id, path: "b.txt" });
    assert.deepEqual([stale.code, stale.data?.reason, stale.data?.paths], ["gitConflict", "diffChanged", ["b.txt"]]);
    assert.equal(repo.read("b.txt"), "changed again\n", "nothing changed");
    await server.main.request("thread/diff/revert", { threadId, path: "b.txt" });
  });
});

describe("spec: git/stage and git/unstage", () => {
  test("by hunk (ids from unstaged and staged reads), by literal path, and everything", async () => {
    const repo = makeRepo(server, { "a.txt": lines(30), "b.txt": "b\n", "*.txt": "star\n" });
    const threadId = await threadIn(repo.root);
    repo.write("a.txt", lines(30).replace("line 2\n", "line two\n").replace("line 27\n", "line 27b\n"));
    repo.write("b.txt", "B\n");
    repo.write("*.txt", "STAR\n");
    repo.write("u.txt", "u\n");
    const unstaged = file(await read(threadId, { scope: "unstaged" }), "a.txt");
    assert.deepEqual(await server.main.request("git/stage", { threadId, hunkId: unstaged.hunks[1]!.id }), { paths: ["a.txt"] });
    const staged = await read(threadId, { scope: "staged" });
    assert.deepEqual(
      staged.files[0]!.hunks.map((h) => h.lines.filter((l) => l[0] !== " ")),
      [["-line 27", "+line 27b"]],
    );
    assert.deepEqual(await server.main.request("git/stage", { threadId, path: "*.txt" }), { paths: ["*.txt"] });
    assert.deepEqual(repo.git("diff", "--cached", "--name-only").trim().split("\n"), ["*.txt", "a.txt"], "a literal path, not a glob");
    const stale = await failure(server, "git/stage", { threadId, hunkId: unstaged.hunks[1]!.id });
    assert.deepEqual([stale.code, stale.data?.reason], ["gitConflict", "diffChanged"]);
    const stagedHunk = file(await read(threadId, { scope: "staged" }), "a.txt").hunks[0]!;
    const wrongScope = await failure(server, "git/stage", { threadId, hunkId: stagedHunk.id });
    assert.equal(wrongScope.data?.reason, "diffChanged", "stage takes ids from an unstaged read");
    assert.deepEqual(await server.main.request("git/unstage", { threadId, hunkId: stagedHunk.id }), { paths: ["a.txt"] });
    assert.deepEqual(await server.main.request("git/unstage", { threadId, path: "*.txt" }), { paths: ["*.txt"] });
    assert.equal(repo.git("diff", "--cached", "--name-only").trim(), "");
    assert.deepEqual((await server.main.request("git/stage", { threadId })).paths, ["*.txt", "a.txt", "b.txt", "u.txt"]);
    assert.deepEqual((await server.main.request("git/unstage", { threadId })).paths, ["*.txt", "a.txt", "b.txt", "u.txt"]);
    assert.equal(repo.git("diff", "--cached", "--name-only").trim(), "");
    assert.equal((await failure(server, "git/unstage", { threadId, hunkId: "c3-0123456789abcdef01234567" })).data?.reason, "diffChanged");
    assert.equal((await failure(server, "git/stage", { threadId, path: "no-such.txt" })).code, "invalidParams");
    server.assertNoSchemaViolations();
  });
});
