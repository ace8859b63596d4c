import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { writeFileAtomic } from "../../src/fs/atomic-write.js";

const dir = mkdtempSync(join(tmpdir(), "kc-atomic-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("replaces content, keeps an existing file's mode and leaves no temporary file", () => {
  const path = join(dir, "a.sh");
  writeFileSync(path, "old");
  chmodSync(path, 0o750);
  writeFileAtomic(path, "new", { durable: true });
  assert.equal(readFileSync(path, "utf8"), "new");
  assert.equal(statSync(path).mode & 0o777, 0o750);
  assert.deepEqual(readdirSync(dir), ["a.sh"]);
});

test("a new file gets the requested mode", () => {
  const path = join(dir, "secret.json");
  writeFileAtomic(path, "{}", { mode: 0o600 });
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test("a failed write leaves the old file whole and no temporary file", () => {
  const sub = mkdtempSync(join(dir, "ro-"));
  const path = join(sub, "keep.txt");
  writeFileSync(path, "precious");
  chmodSync(sub, 0o500);
  try {
    if (process.getuid?.() === 0) {
      // root ignores directory permissions; a missing directory fails the same way.
      assert.throws(() => writeFileAtomic(join(sub, "missing", "x"), "new"));
    } else {
      assert.throws(() => writeFileAtomic(path, "new"));
    }
  } finally {
    chmodSync(sub, 0o700);
  }
  assert.equal(readFileSync(path, "utf8"), "precious");
  assert.deepEqual(readdirSync(sub), ["keep.txt"]);
});
