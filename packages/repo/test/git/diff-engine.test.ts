import assert from "node:assert/strict";
import { statSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { GitConflictError } from "../../src/git/errors.js";
import { resolveBranchBase } from "../../src/git/diff/base.js";
import { DiffInputError } from "../../src/git/diff/errors.js";
import { findHunk, quoteLines } from "../../src/git/diff/find.js";
import { readDiff } from "../../src/git/diff/read.js";
import { formatReviewComments } from "../../src/git/diff/review-comments.js";
import { revertDiff } from "../../src/git/diff/revert.js";
import { changeIndex } from "../../src/git/diff/stage.js";
import { keepTurnTrees, pathsChangedSince, snapshotTree, treeTotals, turnRef } from "../../src/git/diff/snapshot.js";
import { DIFF_BUDGET } from "../../src/git/diff/types.js";
import { toEntry } from "@knightcode/store/session/format";
import { tempRoot } from "../settings/fixtures.js";
import { testRepo, type TestRepo } from "./diff-support.js";

const fresh = tempRoot("diff-engine");

function committed(files: Record<string, string>): TestRepo {
  const repo = testRepo(fresh());
  for (const [path, content] of Object.entries(files)) repo.write(path, content);
  repo.git("add", "-A");
  repo.git("commit", "-q", "-m", "base");
  return repo;
}

const lines = (count: number, tag = "line") => Array.from({ length: count }, (_, i) => `${tag} ${i + 1}\n`).join("");

describe("reading a diff", () => {
  test("files and hunks as git sees them: modified, added (untracked), deleted, renamed, binary, mode-only, CRLF", async () => {
    const repo = committed({
      "a.txt": lines(10),
      "gone.txt": "bye\n",
      "old-name.txt": lines(20, "moved"),
      "bin.dat": "\0\x01binary",
      "run.sh": "echo\n",
      "crlf.txt": "one\r\ntwo\r\n",
    });
    repo.write("a.txt", lines(10).replace("line 5\n", "line five\n"));
    repo.write("new.txt", "fresh\n");
    repo.remove("gone.txt");
    repo.git("mv", "old-name.txt", "new-name.txt");
    repo.write("bin.dat", "\0\x02binary!");
    repo.write("run.sh", "echo\n", 0o755);
    repo.write("crlf.txt", "one\r\nTWO\r\n");
    const { answer } = await readDiff(await repo.ctx(), {});
    const byPath = new Map(answer.files.map((file) => [file.path, file]));
    assert.equal(answer.root, repo.root);
    assert.deepEqual(byPath.get("a.txt")!.hunks[0]!.lines, [" line 2", " line 3", " line 4", "-line 5", "+line five", " line 6", " line 7", " line 8"]);
    assert.equal(byPath.get("a.txt")!.hunks[0]!.oldStart, 2);
    assert.deepEqual([byPath.get("new.txt")!.status, byPath.get("new.txt")!.additions], ["added", 1]);
    assert.deepEqual([byPath.get("gone.txt")!.status, byPath.get("gone.txt")!.deletions], ["deleted", 1]);
    assert.deepEqual(
      [byPath.get("new-name.txt")!.status, byPath.get("new-name.txt")!.oldPath, byPath.get("new-name.txt")!.hunks.length],
      ["renamed", "old-name.txt", 0],
    );
    assert.deepEqual([byPath.get("bin.dat")!.binary, byPath.get("bin.dat")!.hunks.length], [true, 0]);
    const mode = byPath.get("run.sh")!;
    assert.deepEqual([mode.status, mode.additions, mode.deletions, mode.hunks.length], ["modified", 0, 0, 0]);
    assert.deepEqual(byPath.get("crlf.txt")!.hunks[0]!.lines, [" one\r", "-two\r", "+TWO\r"]);
  });

  test("odd paths (spaces, tabs, quotes, non-ASCII) come back whole, and a symlink's change is its target", async () => {
    const repo = committed({ "plain.txt": "x\n" });
    symlinkSync("plain.txt", join(repo.root, "link"));
    repo.git("add", "link");
    repo.git("commit", "-q", "-m", "link");
    for (const name of ["with space.txt", "tab\there.txt", 'quote"d.txt', "naïve ünïcode.txt", "back\\slash.txt"]) repo.write(name, `${name}\n`);
    repo.remove("link");
    symlinkSync("elsewhere", join(repo.root, "link"));
    const { answer } = await readDiff(await repo.ctx(), {});
    assert.deepEqual(
      answer.files.map((file) => file.path).sort(),
      ["back\\slash.txt", "link", "naïve ünïcode.txt", 'quote"d.txt', "tab\there.txt", "with space.txt"].sort(),
    );
    for (const file of answer.files.filter((f) => f.path !== "link")) assert.deepEqual(file.hunks[0]!.lines, [`+${file.path}`]);
    assert.deepEqual(answer.files.find((file) => file.path === "link")!.hunks[0]!.lines, [
      "-plain.txt",
      "\\ No newline at end of file",
      "+elsewhere",
      "\\ No newline at end of file",
    ]);
  });

  test("hunk ids carry the context; a whitespace-blind read marks its ids and leaves whitespace-only files without hunks", async () => {
    const repo = committed({ "a.txt": lines(30), "ws.txt": "a b\n" });
    repo.write("a.txt", lines(30).replace("line 3\n", "line three\n").replace("line 20\n", "line twenty\n"));
    repo.write("ws.txt", "a  b\n");
    const ctx = await repo.ctx();
    const three = (await readDiff(ctx, {})).answer.files.find((f) => f.path === "a.txt")!;
    const again = (await readDiff(ctx, { context: 3 })).answer.files.find((f) => f.path === "a.txt")!;
    const five = (await readDiff(ctx, { context: 5 })).answer.files.find((f) => f.path === "a.txt")!;
    assert.deepEqual(
      three.hunks.map((h) => h.id),
      again.hunks.map((h) => h.id),
      "ids are stable across reads",
    );
    assert.ok(three.hunks.every((h) => h.id.startsWith("c3-")));
    assert.ok(five.hunks.every((h) => h.id.startsWith("c5-")));
    const blind = await readDiff(ctx, { ignoreWhitespace: true });
    assert.ok(blind.answer.files.flatMap((f) => f.hunks).every((h) => h.id.startsWith("w3-")));
    assert.deepEqual(blind.answer.files.find((f) => f.path === "ws.txt")?.hunks ?? [], []);
    repo.write("a.txt", lines(30).replace("line 3\n", "line three\n").replace("line 20\n", "line TWENTY\n"));
    const changed = (await readDiff(ctx, {})).answer.files.find((f) => f.path === "a.txt")!;
    assert.notEqual(changed.hunks[0]!.id, three.hunks[0]!.id, "a change anywhere in the file gives every hunk a new id");
  });

  test("budgets: files past the count are counted, a file past the byte cap keeps its counts without hunks, untracked floods are counted", async () => {
    const repo = committed({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": lines(2000) });
    repo.write("a.txt", "A\n");
    repo.write("b.txt", "B\n");
    repo.write("c.txt", lines(2000, "changed"));
    const ctx = await repo.ctx();
    const small = await readDiff(ctx, {}, { budget: { ...DIFF_BUDGET, maxFiles: 2, maxFileBytes: 1000 } });
    assert.deepEqual(
      small.answer.files.map((f) => f.path),
      ["a.txt", "b.txt"],
    );
    assert.equal(small.answer.filesOmitted, 1);
    const capped = await readDiff(ctx, {}, { budget: { ...DIFF_BUDGET, maxFileBytes: 1000 } });
    const big = capped.answer.files.find((f) => f.path === "c.txt")!;
    assert.deepEqual([big.tooLarge, big.additions, big.deletions, big.hunks.length], [true, 2000, 2000, 0]);
    for (let i = 0; i < 4; i++) repo.write(`flood/${i}.txt`, "x\n");
    const flooded = await readDiff(ctx, {}, { budget: { ...DIFF_BUDGET, maxUntracked: 3 } });
    assert.equal(flooded.answer.untrackedSkipped, 4);
    assert.ok(!flooded.answer.files.some((f) => f.path.startsWith("flood/")));
  });

  test("a read never writes the index, even when it is stale; a same-second edit of the same size is still seen", async () => {
    const repo = committed({ "a.txt": "same size\n", "b.txt": "b\n" });
    repo.write("a.txt", "SAME SIZE\n");
    const later = new Date(Date.now() + 5000);
    utimesSync(join(repo.root, "b.txt"), later, later);
    repo.write("untracked.txt", "u\n");
    const index = join(repo.root, ".git", "index");
    const before = { bytes: repo.read(".git/index"), mtime: statSync(index).mtimeMs };
    const ctx = await repo.ctx();
    for (const scope of ["uncommitted", "unstaged", "staged"] as const) await readDiff(ctx, { scope });
    assert.deepEqual(
      (await readDiff(ctx, {})).answer.files.map((f) => f.path),
      ["a.txt", "untracked.txt"],
    );
    assert.deepEqual(repo.read(".git/index"), before.bytes);
    assert.equal(statSync(index).mtimeMs, before.mtime);
  });

  test("scopes: unstaged against the index, staged against HEAD, committed against the first parent (a root commit against nothing)", async () => {
    const repo = committed({ "a.txt": "one\n" });
    const root = repo.git("rev-parse", "HEAD").trim();
    repo.write("a.txt", "two\n");
    repo.git("commit", "-qam", "two");
    repo.write("a.txt", "three\n");
    repo.git("add", "a.txt");
    repo.write("a.txt", "four\n");
    const ctx = await repo.ctx();
    const lineOf = async (request: Parameters<typeof readDiff>[1]) => (await readDiff(ctx, request)).answer.files[0]!.hunks[0]!.lines;
    assert.deepEqual(await lineOf({ scope: "staged" }), ["-two", "+three"]);
    assert.deepEqual(await lineOf({ scope: "unstaged" }), ["-three", "+four"]);
    assert.deepEqual(await lineOf({ scope: "uncommitted" }), ["-two", "+four"]);
    assert.deepEqual(await lineOf({ scope: "committed", commit: "HEAD" }), ["-one", "+two"]);
    assert.deepEqual(await lineOf({ scope: "committed", commit: root }), ["+one"]);
    await assert.rejects(readDiff(ctx, { scope: "committed" }), DiffInputError);
    await assert.rejects(readDiff(ctx, { scope: "committed", commit: "no-such-thing" }), DiffInputError);
    await assert.rejects(readDiff(ctx, { scope: "committed", commit: "--output=/tmp/x" }), DiffInputError);
  });

  test("a nested repository and a submodule do not break a read", async () => {
    const inner = committed({ "inner.txt": "i\n" });
    const repo = committed({ "a.txt": "a\n" });
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", inner.root, "sub");
    repo.git("commit", "-qm", "sub");
    const nested = testRepo(join(repo.root, "nested"));
    nested.write("n.txt", "n\n");
    repo.write("a.txt", "A\n");
    testRepo(join(repo.root, "sub")).write("inner.txt", "changed\n");
    const { answer } = await readDiff(await repo.ctx(), {});
    assert.ok(answer.files.some((f) => f.path === "a.txt"));
    assert.ok(!answer.files.some((f) => f.path.startsWith("nested")), "a nested repository is not an added file");
  });
});

describe("the branch scope's base", () => {
  test("against, else the worktree's base, else the upstream, else origin/HEAD, else main; nothing to compare with is a DiffInputError", async () => {
    const repo = committed({ "a.txt": "a\n" });
    const ctx = await repo.ctx();
    assert.equal((await resolveBranchBase(ctx)).against, "main");
    repo.git("checkout", "-q", "-b", "feature");
    repo.write("a.txt", "feature\n");
    repo.git("commit", "-qam", "feature");
    const base = repo.git("rev-parse", "main").trim();
    assert.deepEqual(await resolveBranchBase(ctx), { against: "main", base });
    repo.git("branch", "-q", "-m", "main", "trunk");
    await assert.rejects(resolveBranchBase(ctx), DiffInputError);
    repo.git("update-ref", "refs/remotes/origin/trunk", "trunk");
    repo.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk");
    assert.equal((await resolveBranchBase(ctx)).against, "origin/trunk");
    repo.git("branch", "-q", "--set-upstream-to=trunk");
    assert.equal((await resolveBranchBase(ctx)).against, "trunk");
    assert.equal((await resolveBranchBase(ctx, { worktreeBase: base })).against, base);
    assert.equal((await resolveBranchBase(ctx, { against: "feature", worktreeBase: base })).against, "feature");
    await assert.rejects(resolveBranchBase(ctx, { against: "nope" }), DiffInputError);
    const read = await readDiff(ctx, { scope: "branch", against: "trunk" });
    assert.deepEqual([read.answer.against, read.answer.files[0]!.hunks[0]!.lines], ["trunk", ["-a", "+feature"]]);
  });
});

describe("reverting, staging and unstaging", () => {
  test("a hunk, a renamed file (back under its old name), an added file (deleted) and a mode change", async () => {
    const repo = committed({ "a.txt": lines(30), "old.txt": lines(10, "keep"), "run.sh": "x\n" });
    repo.write("a.txt", lines(30).replace("line 2\n", "line two\n").replace("line 25\n", "line 25b\n"));
    repo.git("mv", "old.txt", "new.txt");
    repo.write("added.txt", "added\n");
    repo.write("run.sh", "x\n", 0o755);
    const ctx = await repo.ctx();
    const file = (await readDiff(ctx, {})).answer.files.find((f) => f.path === "a.txt")!;
    assert.deepEqual(await revertDiff(ctx, { path: "a.txt", hunkId: file.hunks[1]!.id }), { paths: ["a.txt"] });
    assert.equal(repo.read("a.txt").toString(), lines(30).replace("line 2\n", "line two\n"));
    assert.deepEqual(await revertDiff(ctx, { path: "new.txt" }), { paths: ["old.txt", "new.txt"] });
    assert.equal(repo.read("old.txt").toString(), lines(10, "keep"));
    assert.deepEqual(await revertDiff(ctx, { path: "added.txt" }), { paths: ["added.txt"] });
    assert.ok(!repo.tree().has("added.txt"));
    await revertDiff(ctx, { path: "run.sh" });
    assert.equal(statSync(join(repo.root, "run.sh")).mode & 0o111, 0);
  });

  test("refusals: staged and committed scopes, a path outside the diff, reapply and turnId off lastTurn, a stale or foreign hunk id", async () => {
    const repo = committed({ "a.txt": "a\n", "b.txt": "b\n" });
    repo.write("a.txt", "A\n");
    const ctx = await repo.ctx();
    const hunk = (await readDiff(ctx, {})).answer.files[0]!.hunks[0]!;
    await assert.rejects(revertDiff(ctx, { scope: "staged" }), DiffInputError);
    await assert.rejects(revertDiff(ctx, { scope: "committed", commit: "HEAD" }), DiffInputError);
    await assert.rejects(revertDiff(ctx, { path: "b.txt" }), DiffInputError);
    await assert.rejects(revertDiff(ctx, { reapply: true }), DiffInputError);
    await assert.rejects(revertDiff(ctx, { turnId: "t" }), DiffInputError);
    const conflict = (reason: string) => (error: unknown) => error instanceof GitConflictError && error.reason === reason;
    await assert.rejects(revertDiff(ctx, { hunkId: hunk.id, context: 5 }), conflict("diffChanged"));
    await assert.rejects(revertDiff(ctx, { hunkId: hunk.id.replace(/^c/, "w") }), conflict("diffChanged"));
    await assert.rejects(revertDiff(ctx, { hunkId: "c0-000000000000000000000000", context: 0 }), conflict("diffChanged"));
    repo.write("a.txt", "AA\n");
    await assert.rejects(revertDiff(ctx, { hunkId: hunk.id }), conflict("diffChanged"));
    assert.equal(repo.read("a.txt").toString(), "AA\n", "a refused revert changes nothing");
  });

  test("stage and unstage by hunk and by path, and everything; the index changes only as asked", async () => {
    const repo = committed({ "a.txt": lines(30), "b.txt": "b\n" });
    repo.write("a.txt", lines(30).replace("line 2\n", "line two\n").replace("line 25\n", "line 25b\n"));
    repo.write("b.txt", "B\n");
    repo.write("u.txt", "untracked\n");
    const ctx = await repo.ctx();
    const unstaged = (await readDiff(ctx, { scope: "unstaged" })).answer.files.find((f) => f.path === "a.txt")!;
    assert.deepEqual(await changeIndex(ctx, { hunkId: unstaged.hunks[0]!.id }, false), { paths: ["a.txt"] });
    assert.deepEqual(
      (await readDiff(ctx, { scope: "staged" })).answer.files[0]!.hunks.map((h) => h.lines.filter((l) => l[0] !== " ")),
      [["-line 2", "+line two"]],
    );
    assert.deepEqual(await changeIndex(ctx, { path: "b.txt" }, false), { paths: ["b.txt"] });
    const uHunk = (await readDiff(ctx, { scope: "unstaged" })).answer.files.find((f) => f.path === "u.txt")!.hunks[0]!;
    assert.deepEqual(await changeIndex(ctx, { hunkId: uHunk.id }, false), { paths: ["u.txt"] });
    assert.deepEqual(repo.git("diff", "--cached", "--name-only").trim().split("\n"), ["a.txt", "b.txt", "u.txt"]);
    const staged = (await readDiff(ctx, { scope: "staged" })).answer.files.find((f) => f.path === "a.txt")!;
    assert.deepEqual(await changeIndex(ctx, { hunkId: staged.hunks[0]!.id }, true), { paths: ["a.txt"] });
    assert.deepEqual(await changeIndex(ctx, { path: "u.txt" }, true), { paths: ["u.txt"] });
    assert.deepEqual(repo.git("diff", "--cached", "--name-only").trim().split("\n"), ["b.txt"]);
    await assert.rejects(changeIndex(ctx, { hunkId: staged.hunks[0]!.id }, true), (e: unknown) => e instanceof GitConflictError && e.reason === "diffChanged");
    assert.deepEqual(await changeIndex(ctx, {}, false), { paths: ["a.txt", "u.txt"] });
    assert.deepEqual(await changeIndex(ctx, {}, true), { paths: ["a.txt", "b.txt", "u.txt"] });
    assert.equal(repo.git("diff", "--cached", "--name-only").trim(), "");
    await assert.rejects(changeIndex(ctx, { path: "../outside" }, false), DiffInputError);
    await assert.rejects(changeIndex(ctx, { path: "no-such-file" }, false), DiffInputError);
  });

  test("a patch git refuses is patchFailed with git's words, and nothing changes", async () => {
    const repo = committed({ "a.txt": lines(10) });
    repo.write("a.txt", lines(10).replace("line 5\n", "line five\n"));
    const ctx = await repo.ctx();
    const read = await readDiff(ctx, {
      scope: "lastTurn",
      lastTurn: { turnId: "t1", before: (await snapshotTree(ctx)) as string, after: await snapshotTree(ctx) },
    });
    assert.equal(read.answer.files.length, 0);
    // A turn's hunk applied to a file that moved on since: git refuses it.
    const before = await snapshotTree(ctx);
    repo.write("a.txt", lines(10).replace("line 5\n", "line 5 by the turn\n"));
    const after = await snapshotTree(ctx);
    repo.write("a.txt", lines(10).replace("line 5\n", "line 5 by the user\n"));
    const lastTurn = { turnId: "t1", before, after };
    const hunk = (await readDiff(ctx, { scope: "lastTurn", lastTurn })).answer.files[0]!.hunks[0]!;
    await assert.rejects(revertDiff(ctx, { scope: "lastTurn", lastTurn, hunkId: hunk.id }), (error: unknown) => {
      assert.ok(error instanceof GitConflictError && error.reason === "patchFailed");
      assert.match(error.details.output ?? "", /patch does not apply|error/);
      return true;
    });
    assert.equal(repo.read("a.txt").toString(), lines(10).replace("line 5\n", "line 5 by the user\n"));
  });
});

describe("turn snapshots", () => {
  test("trees before and after, net totals, the keeper ref, undo and reapply of the whole turn, drift", async () => {
    const repo = committed({ "a.txt": lines(5), "gone.txt": "x\ny\n" });
    repo.write("staged.txt", "staged\n");
    repo.git("add", "staged.txt");
    const ctx = await repo.ctx();
    const indexBefore = repo.read(".git/index");
    const before = await snapshotTree(ctx);
    repo.write("a.txt", lines(5).replace("line 1\n", "line one\nextra\n"));
    repo.remove("gone.txt");
    repo.write("made.txt", "m1\nm2\nm3\n");
    repo.write("ignored.log", "not kept\n");
    repo.write(".gitignore", "*.log\n");
    const after = await snapshotTree(ctx);
    assert.deepEqual(repo.read(".git/index"), indexBefore, "snapshots leave the index alone");
    assert.deepEqual(await treeTotals(ctx, before, after), [
      { path: ".gitignore", additions: 1, deletions: 0 },
      { path: "a.txt", additions: 2, deletions: 1 },
      { path: "gone.txt", additions: 0, deletions: 2 },
      { path: "made.txt", additions: 3, deletions: 0 },
    ]);
    const trees = { turnId: "turn-1", before, after };
    await keepTurnTrees(ctx, "thread-1", trees);
    assert.deepEqual(repo.git("ls-tree", "--format=%(objectname) %(path)", turnRef("thread-1")).trim().split("\n"), [`${after} after`, `${before} before`]);
    const read = await readDiff(ctx, { scope: "lastTurn", lastTurn: trees });
    assert.deepEqual(
      [read.answer.turnId, read.answer.stale, read.answer.files.map((f) => f.path)],
      ["turn-1", false, [".gitignore", "a.txt", "gone.txt", "made.txt"]],
    );
    repo.write("made.txt", "edited by the user\n");
    assert.equal((await readDiff(ctx, { scope: "lastTurn", lastTurn: trees })).answer.stale, true);
    assert.deepEqual(await pathsChangedSince(ctx, after), ["made.txt"]);
    await assert.rejects(revertDiff(ctx, { scope: "lastTurn", lastTurn: trees }), (error: unknown) => {
      assert.ok(error instanceof GitConflictError && error.reason === "diffChanged");
      assert.deepEqual(error.details.paths, ["made.txt"]);
      return true;
    });
    repo.write("made.txt", "m1\nm2\nm3\n");
    await assert.rejects(revertDiff(ctx, { scope: "lastTurn", lastTurn: { ...trees, turnId: "turn-1" }, turnId: "turn-0" }), GitConflictError);
    const undone = await revertDiff(ctx, { scope: "lastTurn", lastTurn: trees, turnId: "turn-1" });
    assert.deepEqual(undone.paths, [".gitignore", "a.txt", "gone.txt", "made.txt"]);
    // Without the .gitignore the turn wrote, its log file is no longer ignored: everything else is as before the turn.
    assert.deepEqual(await pathsChangedSince(ctx, before), ["ignored.log"]);
    repo.remove("ignored.log");
    assert.equal(await snapshotTree(ctx), before);
    await assert.rejects(
      revertDiff(ctx, { scope: "lastTurn", lastTurn: trees }),
      GitConflictError,
      "undo twice: the files are no longer as the turn left them",
    );
    await revertDiff(ctx, { scope: "lastTurn", lastTurn: trees, reapply: true });
    assert.equal(await snapshotTree(ctx), after);
    await assert.rejects(revertDiff(ctx, { scope: "lastTurn", lastTurn: trees, reapply: true, hunkId: "c3-000000000000000000000000" }), DiffInputError);
  });
});

describe("review comments", () => {
  test("a hunk is found by its id in any scope, its lines quoted by side, and the model's text names path, lines and quote", async () => {
    const repo = committed({ "a.txt": lines(10) });
    repo.write("a.txt", lines(10).replace("line 5\n", "line five\nline 5.5\n"));
    const ctx = await repo.ctx();
    const hunk = (await readDiff(ctx, { context: 1 })).answer.files[0]!.hunks[0]!;
    const found = await findHunk(ctx, hunk.id);
    assert.deepEqual(
      [found?.scope, found?.file.path, found?.hunk.lines],
      ["uncommitted", "a.txt", [" line 4", "-line 5", "+line five", "+line 5.5", " line 6"]],
    );
    assert.equal(quoteLines(hunk, "new", 5, 6), "+line five\n+line 5.5");
    assert.equal(quoteLines(hunk, "old", 4, 5), " line 4\n-line 5");
    assert.equal(quoteLines(hunk, "new", 40, 41), "");
    assert.equal(await findHunk(ctx, "c1-000000000000000000000000"), undefined);
    const text = formatReviewComments([{ path: "a.txt", side: "new", startLine: 5, endLine: 6, text: "Why two lines?", quote: "+line five\n+line 5.5" }]);
    assert.match(text, /a\.txt, new lines 5-6/);
    assert.match(text, /```diff\n\+line five\n\+line 5\.5\n```\nWhy two lines\?/);
  });
});

describe("the turn_files session entry", () => {
  test("carries the turn, both trees and well-formed totals; anything else is a malformed entry", () => {
    const base = { type: "turn_files", id: "e1", parentId: null, timestamp: 1, turnId: "t1", before: "a".repeat(40), after: "b".repeat(40) };
    assert.equal(toEntry({ ...base, files: [{ path: "a.txt", additions: 2, deletions: 0 }] }).ok, true);
    for (const bad of [
      { files: undefined },
      { files: [{ path: "a.txt", additions: -1, deletions: 0 }] },
      { files: [{ path: 3, additions: 0, deletions: 0 }] },
      { before: undefined, files: [] },
    ]) {
      const parsed = toEntry({ ...base, ...bad });
      assert.equal(parsed.ok, false, JSON.stringify(bad));
    }
  });
});
