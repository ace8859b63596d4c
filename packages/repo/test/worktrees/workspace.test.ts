import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { INDEX_FILE } from "@knightcode/store/listing/index-file";
import { ThreadListing } from "@knightcode/store/listing/thread-listing";
import { parseEntryLine, type WorkspaceState } from "@knightcode/store/session/format";
import { SessionFile } from "@knightcode/store/session/session-file";
import { effectiveCwd, readThreadPlace, threadPlace, workspaceEntry, workspaceView } from "../../src/worktrees/workspace.js";
import { assistantText, userText } from "@knightcode/store/test/session/helpers";
import { scratch } from "./fixture.js";

const fresh = scratch("worktree-workspace");
const worktree: WorkspaceState = { mode: "worktree", cwd: "/wt/ab12/project/src", path: "/wt/ab12/project", baseRef: "a".repeat(40) };

async function transcript(dir: string, places: WorkspaceState[], turns = 0): Promise<string> {
  const file = await SessionFile.create({ dir, cwd: "/work/project" });
  for (const place of places) file.append(workspaceEntry(place), { durable: true });
  for (let i = 0; i < turns; i++) {
    const start = file.append({ type: "turn_start" });
    file.append({ type: "message", message: userText(`turn ${i}`) });
    file.append({ type: "message", message: assistantText("ok") });
    file.append({ type: "turn_end", turnId: start.id, status: "completed" });
  }
  const path = file.path;
  file.close();
  return path;
}

describe("the workspace entry", () => {
  test("is checked like every kind: a mode, a cwd, and strings for the rest", () => {
    const line = (fields: Record<string, unknown>) => JSON.stringify({ type: "workspace", id: "e1", parentId: null, timestamp: 1, ...fields });
    assert.equal(parseEntryLine(line({ mode: "worktree", cwd: "/a", path: "/a", baseRef: "b" })).ok, true);
    assert.equal(parseEntryLine(line({ mode: "local", cwd: "/a" })).ok, true);
    for (const bad of [{ mode: "cloud", cwd: "/a" }, { mode: "local" }, { mode: "local", cwd: "" }, { mode: "worktree", cwd: "/a", path: 7 }]) {
      assert.equal(parseEntryLine(line(bad)).ok, false, JSON.stringify(bad));
    }
  });

  test("the latest one on the branch says where the thread runs; without one it runs in its header's folder", async () => {
    const dir = fresh();
    const local = await transcript(dir, []);
    assert.deepEqual((await readThreadPlace(local)).place, { mode: "local", cwd: "/work/project" });
    const moved = await transcript(dir, [worktree, { mode: "local", cwd: "/work/project/src", branch: "knightcode/x" }]);
    assert.deepEqual((await readThreadPlace(moved)).place, { mode: "local", cwd: "/work/project/src", branch: "knightcode/x" });
    assert.equal(effectiveCwd({ cwd: "/work/project" }, {}), "/work/project");
    assert.equal(effectiveCwd({ cwd: "/work/project" }, { workspace: worktree }), worktree.cwd);
    assert.deepEqual(workspaceView(worktree), { mode: "worktree", path: worktree.path, baseRef: worktree.baseRef });
  });

  test("turn checkpoints carry it, so a lazy open and a tail read know it without the whole history", async () => {
    const path = await transcript(fresh(), [worktree], 3);
    const lines = readFileSync(path, "utf8").trim().split("\n");
    assert.deepEqual(JSON.parse(lines.at(-1)!).state.workspace, worktree);
    const file = await SessionFile.open(path, { lazy: true });
    assert.deepEqual(threadPlace(file.header, file.summary()), worktree);
    file.close();
    assert.deepEqual((await readThreadPlace(path)).place, worktree);
  });

  test("listings mark worktree threads, keep them under their project's cwd, and find them by the folder they run in", async () => {
    const dir = fresh();
    const plain = await transcript(dir, [], 1);
    const inWorktree = await transcript(dir, [worktree], 1);
    const cold = new ThreadListing();
    const all = (await cold.list({ folders: [dir] })).threads;
    const byPath = new Map(all.map((summary) => [summary.path, summary]));
    assert.equal(byPath.get(plain)!.workspaceMode, "local");
    assert.equal(byPath.get(plain)!.workspace, undefined);
    assert.equal(byPath.get(inWorktree)!.workspaceMode, "worktree");
    assert.deepEqual(byPath.get(inWorktree)!.workspace, worktree);
    assert.equal(byPath.get(inWorktree)!.cwd, "/work/project");
    assert.equal((await cold.list({ folders: [dir], cwd: "/work/project" })).threads.length, 2);
    assert.deepEqual(
      (await cold.list({ folders: [dir], cwd: worktree.cwd })).threads.map((t) => t.path),
      [inWorktree],
    );
    await cold.close();
    const index = JSON.parse(readFileSync(join(dir, INDEX_FILE), "utf8")) as { version: number; shards: number };
    assert.equal(index.version, 4);
    assert.ok(readFileSync(join(dir, `.thread-index-${index.shards}-0.tsv`), "latin1").includes(worktree.path!), "the worktree's path is in the index");
    const warm = new ThreadListing();
    assert.deepEqual((await warm.list({ folders: [dir] })).threads, all, "the index keeps the workspace");
    await warm.close();
  });
});
