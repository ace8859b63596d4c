import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmod, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createEditTool } from "../../src/tools/edit.js";
import { rejectsWith, tempDir, textOf } from "./support.js";

test("replaces the one exact occurrence and reports a modify with its diff", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "a.ts"), "const a = 1;\nconst b = 2;\nconst c = 3;\n");
  const result = await createEditTool({ cwd: dir }).execute("c", { path: "a.ts", oldText: "const b = 2;", newText: "const b = 20;" });
  assert.equal(await readFile(join(dir, "a.ts"), "utf8"), "const a = 1;\nconst b = 20;\nconst c = 3;\n");
  assert.equal(textOf(result), "Edited a.ts at line 2.");
  assert.equal(result.details.fuzzy, false);
  assert.deepEqual(result.details.fileChanges, [
    {
      path: "a.ts",
      kind: "modify",
      diff: "--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n const c = 3;\n",
    },
  ]);
});

test("the reported diff applies to the old file with git apply", async (t) => {
  const dir = await tempDir(t);
  const before = Array.from({ length: 40 }, (_, i) => `row ${i}`).join("\n") + "\n";
  await writeFile(join(dir, "f.txt"), before);
  const result = await createEditTool({ cwd: dir }).execute("c", { path: "f.txt", oldText: "row 20\nrow 21\n", newText: "middle\n" });
  const after = await readFile(join(dir, "f.txt"), "utf8");
  await writeFile(join(dir, "f.txt"), before);
  await writeFile(join(dir, "p.diff"), result.details.fileChanges[0]!.diff);
  const run = spawnSync("git", ["apply", "p.diff"], { cwd: dir, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(await readFile(join(dir, "f.txt"), "utf8"), after);
});

test("several occurrences are refused with their count and advice", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "a.txt"), "x = 1\ny = 2\nx = 1\nx = 1\n");
  const error = await rejectsWith(
    createEditTool({ cwd: dir }).execute("c", { path: "a.txt", oldText: "x = 1", newText: "x = 3" }),
    "ambiguousMatch",
    /occurs 3 times in a\.txt; it must occur exactly once\. Include more surrounding lines/,
  );
  assert.ok(error);
  assert.equal(await readFile(join(dir, "a.txt"), "utf8"), "x = 1\ny = 2\nx = 1\nx = 1\n");
});

test("text not found is refused with advice to read the file again", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "a.txt"), "hello\n");
  await rejectsWith(
    createEditTool({ cwd: dir }).execute("c", { path: "a.txt", oldText: "goodbye", newText: "x" }),
    "noMatch",
    /oldText was not found in a\.txt\. It must match the file exactly, whitespace included; read the file again/,
  );
});

test("a whitespace-tolerant match is used when unique, re-indenting newText", async (t) => {
  const dir = await tempDir(t);
  const file = "function f() {\n    if (x) {   \n        go();\n    }\n}\n";
  await writeFile(join(dir, "f.js"), file);
  const result = await createEditTool({ cwd: dir }).execute("c", {
    path: "f.js",
    oldText: "if (x) {\n    go();\n}",
    newText: "if (x) {\n    go();\n    stop();\n}",
  });
  assert.equal(result.details.fuzzy, true);
  assert.match(textOf(result), /matched ignoring whitespace differences/);
  assert.equal(await readFile(join(dir, "f.js"), "utf8"), "function f() {\n    if (x) {\n        go();\n        stop();\n    }\n}\n");
});

test("a whitespace-tolerant match that is not unique is refused", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "f.py"), "  a = 1\n  b = 2\n\n    a = 1\n    b = 2\n");
  await rejectsWith(
    createEditTool({ cwd: dir }).execute("c", { path: "f.py", oldText: "a = 1\nb = 2", newText: "c = 3" }),
    "ambiguousMatch",
    /ignoring whitespace it matches 2 places/,
  );
});

test("CRLF line endings and a BOM are kept, and LF in oldText matches CRLF in the file", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "w.txt"), "\uFEFFone\r\ntwo\r\nthree\r\n");
  const result = await createEditTool({ cwd: dir }).execute("c", { path: "w.txt", oldText: "one\ntwo\n", newText: "one\n2a\n2b\n" });
  assert.equal(await readFile(join(dir, "w.txt"), "utf8"), "\uFEFFone\r\n2a\r\n2b\r\nthree\r\n");
  assert.equal(result.details.fuzzy, false);
  assert.match(result.details.fileChanges[0]!.diff, /-two\r\n\+2a\r\n\+2b\r\n/);
});

test("lines outside the edit keep their own endings in a mixed file", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "m.txt"), "a\r\nb\nc\r\nd\r\n");
  await createEditTool({ cwd: dir }).execute("c", { path: "m.txt", oldText: "c", newText: "C\nC2" });
  assert.equal(await readFile(join(dir, "m.txt"), "utf8"), "a\r\nb\nC\r\nC2\r\nd\r\n");
});

test("the file mode is kept and no temporary file is left", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "s.sh"), "echo 1\n");
  await chmod(join(dir, "s.sh"), 0o700);
  await createEditTool({ cwd: dir }).execute("c", { path: "s.sh", oldText: "1", newText: "2" });
  assert.equal((await stat(join(dir, "s.sh"))).mode & 0o7777, 0o700);
  assert.deepEqual(await readdir(dir), ["s.sh"]);
});

test("bad requests are refused without touching the file", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "a.txt"), "abc\n");
  await writeFile(join(dir, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  await writeFile(join(dir, "bin"), Buffer.from([0x61, 0, 0x62]));
  const edit = createEditTool({ cwd: dir });
  await rejectsWith(edit.execute("c", { path: "missing.txt", oldText: "a", newText: "b" }), "notFound", /Use write to create a file/);
  await rejectsWith(edit.execute("c", { path: "a.txt", oldText: "", newText: "b" }), "invalidArgument", /oldText is empty/);
  await rejectsWith(edit.execute("c", { path: "a.txt", oldText: "abc", newText: "abc" }), "invalidArgument", /the same/);
  await rejectsWith(edit.execute("c", { path: "latin1.txt", oldText: "caf", newText: "x" }), "binaryFile", /not valid UTF-8/);
  await rejectsWith(edit.execute("c", { path: "bin", oldText: "a", newText: "x" }), "binaryFile", /binary/);
  await rejectsWith(edit.execute("c", { path: ".", oldText: "a", newText: "x" }), "notAFile");
  assert.equal(await readFile(join(dir, "a.txt"), "utf8"), "abc\n");
  assert.deepEqual((await readFile(join(dir, "latin1.txt"))).toJSON().data, [0x63, 0x61, 0x66, 0xe9, 0x0a]);
});

test("deleting text with an empty newText works", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "a.txt"), "keep\ndrop\nkeep\n");
  await createEditTool({ cwd: dir }).execute("c", { path: "a.txt", oldText: "drop\n", newText: "" });
  assert.equal(await readFile(join(dir, "a.txt"), "utf8"), "keep\nkeep\n");
});
