import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SNAPSHOT_UNTRACKED_MAX_BYTES, SNAPSHOT_UNTRACKED_MAX_FILES, SnapshotTooLargeError, snapshotTree } from "../../src/git/diff/snapshot.js";
import { discoverRepo } from "../../src/git/repo.js";
import { tempRoot } from "../settings/fixtures.js";

const fresh = tempRoot("snapshot-bound");

test("a turn's snapshot keeps small untracked files and leaves out ones past the size bound", async () => {
  const dir = realpathSync(fresh());
  execFileSync("git", ["init", "-q", "-b", "main", dir]);
  writeFileSync(join(dir, "small.txt"), "small\n");
  writeFileSync(join(dir, "huge.bin"), Buffer.alloc(SNAPSHOT_UNTRACKED_MAX_BYTES + 1, 7));
  const tree = await snapshotTree({ repo: await discoverRepo(dir) });
  const names = execFileSync("git", ["-C", dir, "ls-tree", "-r", "--name-only", tree], { encoding: "utf8" }).split("\n").filter(Boolean);
  assert.deepEqual(names, ["small.txt"]);
});

test("a working tree with more untracked files than the bound is not snapshotted at all", async () => {
  const dir = realpathSync(fresh());
  execFileSync("git", ["init", "-q", "-b", "main", dir]);
  mkdirSync(join(dir, "many"));
  for (let i = 0; i <= SNAPSHOT_UNTRACKED_MAX_FILES; i++) writeFileSync(join(dir, "many", `f${i}`), "");
  await assert.rejects(snapshotTree({ repo: await discoverRepo(dir) }), SnapshotTooLargeError);
});
