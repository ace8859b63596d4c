import assert from "node:assert/strict";
import { chmod, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createWriteTool } from "../../src/tools/write.js";
import { rejectsWith, tempDir, textOf } from "./support.js";

test("creates a file and its parent directories and reports an add with its diff", async (t) => {
  const dir = await tempDir(t);
  const result = await createWriteTool({ cwd: dir }).execute("c", { path: "deep/er/new.txt", content: "hello\nworld\n" });
  assert.equal(await readFile(join(dir, "deep/er/new.txt"), "utf8"), "hello\nworld\n");
  assert.equal(textOf(result), "Created deep/er/new.txt (12 bytes).");
  assert.deepEqual(result.details.fileChanges, [
    { path: "deep/er/new.txt", kind: "add", diff: "--- /dev/null\n+++ b/deep/er/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n" },
  ]);
});

test("overwriting keeps the file mode, leaves no temporary file and reports a modify", async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, "run.sh");
  await writeFile(file, "#!/bin/sh\necho old\n");
  await chmod(file, 0o750);
  const result = await createWriteTool({ cwd: dir }).execute("c", { path: "run.sh", content: "#!/bin/sh\necho new\n" });
  assert.equal(await readFile(file, "utf8"), "#!/bin/sh\necho new\n");
  assert.equal((await stat(file)).mode & 0o7777, 0o750);
  assert.deepEqual(await readdir(dir), ["run.sh"]);
  assert.equal(textOf(result), "Overwrote run.sh (19 bytes).");
  assert.deepEqual(result.details.fileChanges, [
    { path: "run.sh", kind: "modify", diff: "--- a/run.sh\n+++ b/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo old\n+echo new\n" },
  ]);
});

test("writing through a symlink replaces the target and keeps the link", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "real.txt"), "old\n");
  await symlink("real.txt", join(dir, "link.txt"));
  await createWriteTool({ cwd: dir }).execute("c", { path: "link.txt", content: "new\n" });
  assert.equal(await readlink(join(dir, "link.txt")), "real.txt");
  assert.equal(await readFile(join(dir, "real.txt"), "utf8"), "new\n");
});

test("a failed write leaves the old file whole and no temporary file", async (t) => {
  const dir = await tempDir(t);
  const sub = join(dir, "locked");
  await mkdir(sub);
  await writeFile(join(sub, "f.txt"), "keep me\n");
  if (process.getuid?.() === 0) return t.skip("root ignores directory permissions (atomic-write.test covers failures as root)");
  await chmod(sub, 0o555);
  try {
    await rejectsWith(createWriteTool({ cwd: dir }).execute("c", { path: "locked/f.txt", content: "lost?\n" }), "ioError", /permission denied/);
    assert.equal(await readFile(join(sub, "f.txt"), "utf8"), "keep me\n");
    assert.deepEqual(await readdir(sub), ["f.txt"]);
  } finally {
    await chmod(sub, 0o755);
  }
});

test("a directory path and an aborted signal are refused", async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, "sub"));
  const write = createWriteTool({ cwd: dir });
  await rejectsWith(write.execute("c", { path: "sub", content: "x" }), "notAFile", /sub is a directory/);
  await rejectsWith(write.execute("c", { path: "a.txt", content: "x" }, AbortSignal.abort()), "aborted");
  assert.deepEqual(await readdir(dir), ["sub"]);
});

test("paths outside the cwd are written and reported absolute", async (t) => {
  const dir = await tempDir(t);
  const other = await tempDir(t);
  const result = await createWriteTool({ cwd: dir }).execute("c", { path: join(other, "o.txt"), content: "x" });
  assert.equal(result.details.fileChanges[0]?.path, join(other, "o.txt"));
  assert.equal(await readFile(join(other, "o.txt"), "utf8"), "x");
});
