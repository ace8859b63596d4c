import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { backdateSnapshot } from "../../src/git/diff/backdate.js";
import { snapshotTree } from "../../src/git/diff/snapshot.js";
import { discoverRepo } from "../../src/git/repo.js";
import { tempRoot } from "../settings/fixtures.js";

const fresh = tempRoot("backdate");

function repoWith(files: Record<string, string>): string {
  const dir = realpathSync(fresh());
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" });
  git("init", "-q", "-b", "main");
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  git("add", "-A");
  git("-c", "user.name=T", "-c", "user.email=t@t", "commit", "-q", "-m", "base");
  return dir;
}

const listing = (dir: string, tree: string) => execFileSync("git", ["-C", dir, "ls-tree", "-r", tree], { encoding: "utf8" });
const setTime = (dir: string, path: string, ms: number) => utimesSync(join(dir, path), new Date(ms), new Date(ms));

test("files saved after the start are put back as the baseline had them; earlier edits and untouched files stay", async () => {
  const dir = repoWith({ "a.txt": "a\n", "dir/b.txt": "b\n", "c.txt": "c\n" });
  const ctx = { repo: await discoverRepo(dir) };
  const head = execFileSync("git", ["-C", dir, "rev-parse", "HEAD^{tree}"], { encoding: "utf8" }).trim();
  writeFileSync(join(dir, "c.txt"), "c edited before\n");
  setTime(dir, "c.txt", 1_000_000);
  writeFileSync(join(dir, "a.txt"), "a saved late\n");
  writeFileSync(join(dir, "dir/b.txt"), "b saved late\n");
  writeFileSync(join(dir, "new file.txt"), "created late\n");
  const since = statSync(join(dir, "c.txt")).mtimeMs + 1;
  const taken = await snapshotTree(ctx);
  const backdated = await backdateSnapshot(ctx, taken, since, undefined);
  const c = listing(dir, taken)
    .split("\n")
    .find((line) => line.endsWith("\tc.txt"));
  assert.equal(listing(dir, backdated), listing(dir, head).replace(/^.*\tc\.txt$/m, c!), "a.txt and dir/b.txt as in HEAD, the new file out, c.txt as taken");
});

test("nothing saved after the start: the snapshot as taken", async () => {
  const dir = repoWith({ "a.txt": "a\n" });
  const ctx = { repo: await discoverRepo(dir) };
  writeFileSync(join(dir, "a.txt"), "edited\n");
  const taken = await snapshotTree(ctx);
  assert.equal(await backdateSnapshot(ctx, taken, statSync(join(dir, "a.txt")).mtimeMs + 1, undefined), taken);
});
