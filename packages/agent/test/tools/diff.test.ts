import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { unifiedDiff } from "../../src/tools/diff.js";
import { random, tempDir } from "./support.js";

const lines = (count: number, prefix = "line"): string => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}\n`).join("");

/** The hunks `git diff --no-index` prints for the two texts, without its headers. */
async function gitHunks(dir: string, oldText: string, newText: string): Promise<string> {
  await writeFile(join(dir, "old"), oldText);
  await writeFile(join(dir, "new"), newText);
  const run = spawnSync("git", ["diff", "--no-index", "--no-color", "--diff-algorithm=myers", "--no-indent-heuristic", "old", "new"], {
    cwd: dir,
    encoding: "utf8",
  });
  // git adds a "function" heading after the second @@; it is optional and we print none.
  return run.stdout.slice(run.stdout.indexOf("@@")).replace(/^(@@ [^@]+ @@).*$/gm, "$1");
}

const hunksOf = (diff: string): string => diff.slice(diff.indexOf("@@"));

/** Applies `diff` to a file holding `oldText` with git apply (or patch) and returns the result. */
async function applyWith(tool: "git" | "patch", dir: string, oldText: string | null, diff: string): Promise<string> {
  const file = join(dir, "f.txt");
  if (oldText !== null) await writeFile(file, oldText);
  await writeFile(join(dir, "change.diff"), diff);
  const args = tool === "git" ? ["apply", "--unidiff-zero", "change.diff"] : ["-p1", "--quiet", "-i", "change.diff"];
  const run = spawnSync(tool, args, { cwd: dir, encoding: "utf8" });
  assert.equal(run.status, 0, `${tool} failed: ${run.stderr}${run.stdout}\n${diff}`);
  return readFile(file, "utf8");
}

test("identical texts give an empty diff", () => {
  assert.equal(unifiedDiff("a\nb\n", "a\nb\n", "f.txt"), "");
  assert.equal(unifiedDiff("", "", "f.txt"), "");
});

test("a one-line change has a/ and b/ headers and three lines of context", () => {
  const before = lines(10);
  const after = before.replace("line 5\n", "line five\n");
  assert.equal(
    unifiedDiff(before, after, "src/f.txt"),
    "--- a/src/f.txt\n+++ b/src/f.txt\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n",
  );
});

test("an added file diffs from /dev/null and a deleted one to it", () => {
  assert.equal(unifiedDiff(null, "x\ny\n", "new.txt"), "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n");
  assert.equal(unifiedDiff("x\n", null, "old.txt"), "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n");
});

test("an absolute path loses its leading slash after the a/ prefix, as git prints it", () => {
  assert.match(unifiedDiff("a\n", "b\n", "/tmp/x.txt"), /^--- a\/tmp\/x\.txt\n\+\+\+ b\/tmp\/x\.txt\n/);
});

test("hunks match git diff --no-index on unambiguous cases", async (t) => {
  const dir = await tempDir(t);
  const base = lines(30);
  const cases: Array<[string, string, string]> = [
    ["middle change", base, base.replace("line 15\n", "changed\n")],
    ["insert at start", base, `new first\n${base}`],
    ["delete at end", base, lines(27)],
    ["two distant changes make two hunks", base, base.replace("line 3\n", "x\n").replace("line 25\n", "y\n")],
    ["two near changes share a hunk", base, base.replace("line 10\n", "x\n").replace("line 16\n", "y\n")],
    ["missing newline at end added", "a\nb\nc", "a\nb\nc\n"],
    ["missing newline at end removed", "a\nb\nc\n", "a\nb\nc"],
    ["last line changed without newline", "a\nb\nc", "a\nb\nd"],
    ["empty to content", "", "one\ntwo\n"],
    ["content to empty", "one\ntwo\n", ""],
    ["block replaced", base, base.replace("line 11\nline 12\nline 13\n", "p\nq\n")],
  ];
  for (const [name, before, after] of cases) {
    assert.equal(hunksOf(unifiedDiff(before, after, "f.txt")), await gitHunks(dir, before, after), name);
  }
});

test("random edits round-trip through git apply and patch", async (t) => {
  const dir = await tempDir(t);
  const next = random(42);
  const pick = (n: number): number => Math.floor(next() * n);
  for (let round = 0; round < 40; round++) {
    const before = Array.from({ length: pick(60) }, () => `${"abcde"[pick(5)]}\n`);
    const after = [...before];
    for (let edits = pick(8); edits > 0; edits--) {
      const at = pick(after.length + 1);
      const kind = pick(3);
      if (kind === 0) after.splice(at, 0, `${"abcxyz"[pick(6)]}\n`);
      else if (kind === 1) after.splice(at, 1);
      else after.splice(at, 1, "changed\n");
    }
    let oldText = before.join("");
    let newText = after.join("");
    if (round % 5 === 0) oldText = oldText.replace(/\n$/, "");
    if (round % 7 === 0) newText = newText.replace(/\n$/, "");
    const diff = unifiedDiff(oldText, newText, "f.txt");
    if (oldText === newText) continue;
    // Myers finds a shortest edit script: as many changed lines as git's minimal diff.
    const changed = (text: string): number => text.split("\n").filter((line) => /^[-+](?![-+]{2} )/.test(line)).length;
    await writeFile(join(dir, "old"), oldText);
    await writeFile(join(dir, "new"), newText);
    const minimal = spawnSync("git", ["diff", "--no-index", "--minimal", "old", "new"], { cwd: dir, encoding: "utf8" }).stdout;
    assert.equal(changed(hunksOf(diff)), changed(hunksOf(minimal)), `round ${round}`);
    assert.equal(await applyWith(round % 2 === 0 ? "git" : "patch", dir, oldText, diff), newText, `round ${round}`);
  }
});

test("a creation diff applies with git apply", async (t) => {
  const dir = await tempDir(t);
  assert.equal(await applyWith("git", dir, null, unifiedDiff(null, "hello\nworld\n", "f.txt")), "hello\nworld\n");
});

test("a large rewrite beyond the search budget still gives a diff that applies", async (t) => {
  const dir = await tempDir(t);
  const before = lines(30_000);
  const after = before.replace(/line (\d*7)\n/g, "seven $1\n");
  const diff = unifiedDiff(before, after, "f.txt");
  // Split at unique lines, the diff holds just the 3,000 changed lines instead of replacing the file whole.
  const changedLines = diff.split("\n").filter((line) => /^[-+](?![-+]{2} )/.test(line)).length;
  assert.equal(changedLines, 2 * 3000);
  assert.equal(await applyWith("git", dir, before, diff), after);
});

test("a large change without unique lines falls back to replacing the block, and still applies", async (t) => {
  const dir = await tempDir(t);
  const before = "x\ny\n".repeat(20_000);
  const after = "y\nx\nx\n".repeat(12_000);
  assert.equal(await applyWith("git", dir, before, unifiedDiff(before, after, "f.txt")), after);
});

test("CRLF lines are diffed with their carriage returns, as git does", async (t) => {
  const dir = await tempDir(t);
  const before = "a\r\nb\r\nc\r\n";
  const after = "a\r\nB\r\nc\r\n";
  assert.equal(hunksOf(unifiedDiff(before, after, "f.txt")), await gitHunks(dir, before, after));
  assert.equal(await applyWith("patch", dir, before, unifiedDiff(before, after, "f.txt")), after);
});
