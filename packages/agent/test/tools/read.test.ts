import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import { createReadTool } from "../../src/tools/read.js";
import { rejectsWith, tempDir, textOf } from "./support.js";

const numbered = (count: number): string => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

test("reads a whole small file relative to the cwd", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "a.txt"), "one\ntwo\nthree");
  const result = await createReadTool({ cwd: dir }).execute("c1", { path: "a.txt" });
  assert.equal(textOf(result), "one\ntwo\nthree");
  assert.deepEqual(result.details, { path: "a.txt", startLine: 1, endLine: 3, totalLines: 3 });
});

test("offset and limit select lines, and the notice gives the next offset", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "a.txt"), numbered(10));
  const read = createReadTool({ cwd: dir });
  const part = await read.execute("c1", { path: "a.txt", offset: 3, limit: 4 });
  assert.equal(textOf(part), "line 3\nline 4\nline 5\nline 6\n\n[Showing lines 3-6 of 10. Use offset=7 to continue.]");
  assert.equal(part.details.nextOffset, 7);
  const rest = await read.execute("c2", { path: "a.txt", offset: part.details.nextOffset! });
  assert.equal(textOf(rest), "line 7\nline 8\nline 9\nline 10");
  await rejectsWith(read.execute("c3", { path: "a.txt", offset: 11 }), "invalidArgument", /Offset 11 is past the end of a\.txt, which has 10 lines/);
});

test("a long file stops at 2000 lines and continuing from the notice reads the rest", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "big.txt"), numbered(4500));
  const read = createReadTool({ cwd: dir });
  const seen: string[] = [];
  let offset: number | undefined = 1;
  while (offset !== undefined) {
    const result = await read.execute("c", { path: "big.txt", offset });
    const text = textOf(result);
    seen.push(...text.split("\n\n[")[0]!.split("\n"));
    if (result.details.nextOffset !== undefined) {
      assert.match(
        text,
        new RegExp(`\\[Showing lines ${offset}-${result.details.nextOffset - 1} of 4500\\. Use offset=${result.details.nextOffset} to continue\\.\\]$`),
      );
      assert.equal(result.details.truncated, true);
    }
    offset = result.details.nextOffset;
  }
  assert.equal(seen.length, 4500);
  assert.equal(seen.join("\n") + "\n", numbered(4500));
});

test("the byte limit stops before 2000 lines and says so", async (t) => {
  const dir = await tempDir(t);
  const line = "x".repeat(100);
  await writeFile(join(dir, "wide.txt"), `${line}\n`.repeat(1000));
  const result = await createReadTool({ cwd: dir }).execute("c", { path: "wide.txt" });
  const text = textOf(result);
  assert.ok(Buffer.byteLength(text) < 52 * 1024, `${Buffer.byteLength(text)} bytes`);
  const shown = result.details.endLine!;
  assert.ok(shown > 400 && shown < 1000, `showed ${shown} lines`);
  assert.match(text, new RegExp(`\\[Showing lines 1-${shown} of 1000 \\(50 KiB output limit\\)\\. Use offset=${shown + 1} to continue\\.\\]$`));
});

test("a very long line is cut with a notice, and the next lines still show", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "min.js"), `short\n${"y".repeat(5_000_000)}\nafter\n`);
  const result = await createReadTool({ cwd: dir }).execute("c", { path: "min.js" });
  const text = textOf(result);
  const lines = text.split("\n");
  assert.equal(lines[0], "short");
  assert.equal(lines[1], `${"y".repeat(2000)} ... [line cut: 5000000 bytes in full]`);
  assert.equal(lines[2], "after");
  assert.match(text, /\[1 line\(s\) longer than 2000 characters were cut; use bash/);
});

test("CRLF files read without carriage returns; empty files say so", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "win.txt"), "a\r\nb\r\n");
  await writeFile(join(dir, "empty.txt"), "");
  const read = createReadTool({ cwd: dir });
  assert.equal(textOf(await read.execute("c", { path: "win.txt" })), "a\nb");
  assert.equal(textOf(await read.execute("c", { path: "empty.txt" })), "(empty file)");
});

test("images are recognised by their bytes, not their names", async (t) => {
  const dir = await tempDir(t);
  const png = Buffer.from(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
    "hex",
  );
  await writeFile(join(dir, "picture.dat"), png);
  await writeFile(join(dir, "fake.png"), "not an image\n");
  await writeFile(join(dir, "anim"), Buffer.concat([Buffer.from("GIF89a"), Buffer.alloc(20)]));
  await writeFile(join(dir, "photo"), Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(20)]));
  await writeFile(join(dir, "web"), Buffer.concat([Buffer.from("RIFF"), Buffer.from([1, 0, 0, 0]), Buffer.from("WEBPVP8 "), Buffer.alloc(8)]));
  const read = createReadTool({ cwd: dir });
  const result = await read.execute("c", { path: "picture.dat" });
  assert.equal(result.content.length, 2);
  assert.deepEqual(result.content[1], { type: "image", data: png.toString("base64"), mimeType: "image/png" });
  assert.equal(textOf(result), `Read image picture.dat (image/png, ${png.length} B).`);
  assert.equal(textOf(await read.execute("c", { path: "fake.png" })), "not an image");
  for (const [name, mime] of [
    ["anim", "image/gif"],
    ["photo", "image/jpeg"],
    ["web", "image/webp"],
  ] as const) {
    const image = await read.execute("c", { path: name });
    assert.equal(image.details.mimeType, mime);
    assert.equal(image.content[1]?.type, "image");
  }
});

test("missing files, directories and binary files are clear errors", async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, "sub"));
  await writeFile(join(dir, "blob.bin"), Buffer.from([1, 2, 0, 3, 4]));
  const read = createReadTool({ cwd: dir });
  await rejectsWith(read.execute("c", { path: "nope.txt" }), "notFound", /^File not found: nope\.txt$/);
  await rejectsWith(read.execute("c", { path: "sub" }), "notAFile", /sub is a directory, not a file\. Use ls/);
  await rejectsWith(read.execute("c", { path: "blob.bin" }), "binaryFile", /binary file/);
  await rejectsWith(read.execute("c", { path: "" }), "invalidArgument", /empty/);
});

test("absolute paths outside the cwd show whole and ~ means the home directory", async (t) => {
  const dir = await tempDir(t);
  const other = await tempDir(t);
  await writeFile(join(other, "x.txt"), "outside\n");
  const read = createReadTool({ cwd: dir });
  const result = await read.execute("c", { path: join(other, "x.txt") });
  assert.equal(textOf(result), "outside");
  assert.equal(result.details.path, join(other, "x.txt"));
  // The temp dir may or may not be under the home directory; only check when it is.
  const fromHome = relative(homedir(), join(other, "x.txt"));
  if (!fromHome.startsWith("..")) assert.equal(textOf(await read.execute("c", { path: `~/${fromHome}` })), "outside");
});

test("an aborted signal stops the read", async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, "a.txt"), "a\n");
  await rejectsWith(createReadTool({ cwd: dir }).execute("c", { path: "a.txt" }, AbortSignal.abort()), "aborted");
});
