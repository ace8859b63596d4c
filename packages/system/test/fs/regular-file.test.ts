import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { NotRegularFileError, openRegularFile, readRegularFile, readRegularFileSync } from "../../src/fs/regular-file.js";

const dir = mkdtempSync(join(tmpdir(), "kc-regular-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync("mkfifo", [path]);
  return path;
}

describe("regular files only", () => {
  test("a FIFO without a writer is refused at once, also through a link, and the shared I/O threads stay free", async () => {
    // More FIFOs than libuv has threads: one blocking open each would stall every file operation after them.
    const pipes = Array.from({ length: 8 }, (_, i) => fifo(`pipe-${i}`));
    symlinkSync(pipes[0]!, join(dir, "pipe-link"));
    const outcomes = await Promise.allSettled([...pipes, join(dir, "pipe-link")].map((path) => readRegularFile(path)));
    for (const outcome of outcomes) {
      assert.equal(outcome.status, "rejected");
      assert.ok(outcome.reason instanceof NotRegularFileError);
      assert.equal(outcome.reason.kind, "a FIFO");
    }
    writeFileSync(join(dir, "plain.txt"), "still readable");
    assert.equal(await readFile(join(dir, "plain.txt"), "utf8"), "still readable");
    assert.throws(() => readRegularFileSync(pipes[1]!), NotRegularFileError);
  });

  test("devices are refused without being read, folders answer EISDIR as a read would", async () => {
    await assert.rejects(openRegularFile("/dev/zero"), (error: unknown) => error instanceof NotRegularFileError && error.kind === "a character device");
    assert.throws(() => readRegularFileSync("/dev/null"), NotRegularFileError);
    const folder = join(dir, "folder");
    mkdirSync(folder);
    await assert.rejects(readRegularFile(folder), { code: "EISDIR" });
    assert.throws(() => readRegularFileSync(folder), { code: "EISDIR" });
    await assert.rejects(readRegularFile(join(dir, "missing")), { code: "ENOENT" });
  });

  test("a regular file is read whole, or one byte past the limit and no further", async () => {
    const path = join(dir, "data.bin");
    const data = Buffer.alloc(3 * 1024 * 1024 + 7, 0x61);
    writeFileSync(path, data);
    assert.ok((await readRegularFile(path)).equals(data));
    assert.ok(readRegularFileSync(path).equals(data));
    assert.equal((await readRegularFile(path, 10)).length, 11);
    assert.equal(readRegularFileSync(path, 10).length, 11);
    assert.equal((await readRegularFile(path, data.length)).length, data.length);
    writeFileSync(join(dir, "empty"), "");
    assert.equal((await readRegularFile(join(dir, "empty"))).length, 0);
  });
});
