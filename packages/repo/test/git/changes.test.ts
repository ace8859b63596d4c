import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { applyChanges, captureChanges, changedPaths, dropChanges } from "../../src/git/changes.js";
import { GitConflictError } from "../../src/git/errors.js";
import { discoverRepo } from "../../src/git/repo.js";
import { waitUntil } from "@knightcode/testkit";
import { tempRoot } from "../settings/fixtures.js";

const fresh = tempRoot("git-changes");
const git = (dir: string, ...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" });

function committedRepo(): string {
  const dir = realpathSync(fresh());
  execFileSync("git", ["init", "-q", "-b", "main", dir]);
  git(dir, "config", "user.email", "t@example.com");
  git(dir, "config", "user.name", "T");
  writeFileSync(join(dir, "a.txt"), "one\ntwo\nthree\n");
  writeFileSync(join(dir, "gone.txt"), "bye\n");
  writeFileSync(join(dir, ".gitignore"), "*.log\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "base");
  return dir;
}

describe("moving uncommitted changes", () => {
  test("captured from one checkout, applied to a clean clone, dropped from the source", async () => {
    const source = committedRepo();
    const index = statSync(join(source, ".git", "index"));
    writeFileSync(join(source, "a.txt"), "one\n2\nthree\n");
    git(source, "rm", "-q", "gone.txt");
    mkdirSync(join(source, "new"));
    writeFileSync(join(source, "new", "bin.dat"), Buffer.from([0, 1, 2, 255, 0, 7]));
    writeFileSync(join(source, "debug.log"), "ignored\n");
    const staged = statSync(join(source, ".git", "index"));
    const repo = await discoverRepo(source);
    const changes = await captureChanges(repo);
    assert.deepEqual([...changes.paths].sort(), ["a.txt", "gone.txt", "new/bin.dat"]);
    assert.deepEqual(changes.untracked, ["new/bin.dat"]);
    assert.equal(statSync(join(source, ".git", "index")).mtimeMs, staged.mtimeMs, "the user's index is not written");
    assert.notEqual(index.mtimeMs, undefined);

    const dest = realpathSync(fresh());
    execFileSync("git", ["clone", "-q", source, dest]);
    assert.deepEqual(await changedPaths(dest), []);
    await applyChanges(dest, changes.patch);
    assert.equal(readFileSync(join(dest, "a.txt"), "utf8"), "one\n2\nthree\n");
    assert.equal(existsSync(join(dest, "gone.txt")), false);
    assert.deepEqual([...readFileSync(join(dest, "new", "bin.dat"))], [0, 1, 2, 255, 0, 7]);
    assert.equal(existsSync(join(dest, "debug.log")), false, "ignored files do not travel");

    await dropChanges(source, changes);
    assert.deepEqual(await changedPaths(source), []);
    assert.equal(readFileSync(join(source, "a.txt"), "utf8"), "one\ntwo\nthree\n");
    assert.equal(readFileSync(join(source, "debug.log"), "utf8"), "ignored\n", "ignored files stay");
  });

  test("a file rewritten with the same size in the second its index was written is still a change (racy git)", async () => {
    const source = committedRepo();
    const index = join(source, ".git", "index");
    const second = (path: string) => Math.floor(statSync(path).mtimeMs / 1000);
    // The edit and the index write must share a second; should the clock tick between them, try again.
    await waitUntil("an edit in the same second as its index", () => {
      writeFileSync(join(source, "a.txt"), "one\ntwo\nsix\n");
      git(source, "add", "a.txt");
      writeFileSync(join(source, "a.txt"), "one\ntwo\nten\n");
      return second(join(source, "a.txt")) === second(index);
    });
    // A copy of the index made in a later second must still know the entry is racy.
    await waitUntil("a later second", () => Math.floor(Date.now() / 1000) > second(index));
    const changes = await captureChanges(await discoverRepo(source));
    assert.ok(changes.patch.toString("utf8").includes("+ten"), changes.patch.toString("utf8"));
  });

  test("a patch that does not apply changes nothing and says why", async () => {
    const source = committedRepo();
    writeFileSync(join(source, "a.txt"), "one\n2\nthree\n");
    const changes = await captureChanges(await discoverRepo(source));
    const dest = realpathSync(fresh());
    execFileSync("git", ["clone", "-q", source, dest]);
    writeFileSync(join(dest, "a.txt"), "entirely\ndifferent\n");
    await assert.rejects(applyChanges(dest, changes.patch), (error: unknown) => error instanceof GitConflictError && error.reason === "patchFailed");
    assert.equal(readFileSync(join(dest, "a.txt"), "utf8"), "entirely\ndifferent\n");
  });

  test("no hook or filter runs while changes are captured, applied or dropped", async () => {
    const source = committedRepo();
    const marker = join(source, "..", `filter-ran-${Date.now()}`);
    const script = join(source, "..", `filter-${Date.now()}.sh`);
    writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\ncat\n`);
    chmodSync(script, 0o755);
    writeFileSync(join(source, ".gitattributes"), "*.txt filter=mark\n");
    git(source, "config", "filter.mark.clean", script);
    git(source, "config", "filter.mark.smudge", script);
    writeFileSync(join(source, "a.txt"), "changed\n");
    const changes = await captureChanges(await discoverRepo(source));
    await dropChanges(source, changes);
    await applyChanges(source, changes.patch);
    assert.equal(existsSync(marker), false);
  });
});
