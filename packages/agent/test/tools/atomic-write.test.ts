import assert from "node:assert/strict";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { writeFileAtomicAsync as writeFileAtomic } from "@knightcode/system/fs/atomic-write";
import { tempDir } from "./support.js";

test("a write that fails before the rename leaves the old file and no temporary file", async (t) => {
  const dir = await tempDir(t);
  // The longest allowed name: the temporary name beside it is too long to create.
  const name = "n".repeat(250);
  await writeFile(join(dir, name), "original\n");
  await assert.rejects(writeFileAtomic(join(dir, name), "replacement\n"), { code: "ENAMETOOLONG" });
  assert.equal(await readFile(join(dir, name), "utf8"), "original\n");
  assert.deepEqual(await readdir(dir), [name]);
});

test("a rename that fails removes the temporary file", async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, "target"));
  await writeFile(join(dir, "target", "inside.txt"), "x");
  await assert.rejects(writeFileAtomic(join(dir, "target"), "data"));
  assert.deepEqual(await readdir(dir), ["target"]);
  assert.deepEqual(await readdir(join(dir, "target")), ["inside.txt"]);
});

test("concurrent readers see the old or the new contents, never a mix", async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, "f.txt");
  const a = "a".repeat(1 << 20);
  const b = "b".repeat(1 << 20);
  await writeFile(file, a);
  let writing = true;
  const writer = (async () => {
    for (let i = 0; i < 20; i++) await writeFileAtomic(file, i % 2 === 0 ? b : a);
    writing = false;
  })();
  let reads = 0;
  while (writing) {
    const seen = await readFile(file, "utf8");
    assert.ok(seen === a || seen === b, "a torn read");
    reads++;
  }
  await writer;
  assert.ok(reads > 0);
});
